// The stored workspace items, built from their entities (./entities/workspace.ts): keys and index keys
// come from the declarations' key builders here, so the import and the API use cases hand over
// attributes only and never assemble keys themselves.
import { userEntity, type UserItem } from './entities/accounts';
import {
  connectedDomainEntity,
  connectedMailboxEntity,
  domainReputationEntity,
  mailboxReputationEntity,
  safetyNetMailboxEntity,
  safetyNetSequenceEntity,
  type ConnectedDomainItem,
  type ConnectedMailboxItem,
  type DomainReputationItem,
  type MailboxReputationItem,
  type SafetyNetMailboxItem,
  type SafetyNetSequenceItem,
} from './entities/workspace';
import type { StoredItem } from './entities/declare';
import {
  connectedDomainKey,
  connectedMailboxIdIndex,
  connectedMailboxKey,
  domainReputationKey,
  mailboxesOfOwnerIndex,
  mailboxReputationKey,
  safetyNetMailboxIdIndex,
  safetyNetMailboxKey,
  safetyNetSequenceIdIndex,
  safetyNetSequenceKey,
  userIdIndex,
  userKey,
} from './keys';

type KeyAttributes = 'pk' | 'sk' | 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'type';
/** An entity's attributes without its keys, index keys and `type`: what a caller supplies. */
type FieldsOf<Build extends (input: never) => StoredItem> = Omit<Parameters<Build>[0], KeyAttributes>;

export type ConnectedMailboxFields = FieldsOf<typeof connectedMailboxEntity.item>;

/** A stored item's attributes without its keys, index keys and `type`: what its builder takes back. */
export function fieldsOf<T extends StoredItem>(item: T): Omit<T, KeyAttributes> {
  const {
    pk: _pk,
    sk: _sk,
    gsi1pk: _g1p,
    gsi1sk: _g1s,
    gsi2pk: _g2p,
    gsi2sk: _g2s,
    type: _type,
    ...fields
  } = item;
  return fields;
}

/** CMBX#<email>, found by id (gsi1) and by owner (gsi2). */
export const connectedMailboxItem = (
  companyId: string,
  fields: ConnectedMailboxFields,
): ConnectedMailboxItem =>
  connectedMailboxEntity.item({
    ...connectedMailboxKey(companyId, fields.email),
    ...connectedMailboxIdIndex(companyId, fields.id),
    ...mailboxesOfOwnerIndex(companyId, fields.owner.email, fields.email),
    type: 'connectedMailbox',
    ...fields,
  });

export const mailboxReputationItem = (
  companyId: string,
  fields: FieldsOf<typeof mailboxReputationEntity.item>,
): MailboxReputationItem =>
  mailboxReputationEntity.item({
    ...mailboxReputationKey(companyId, fields.mailboxId, fields.year),
    type: 'mailboxReputation',
    ...fields,
  });

export const connectedDomainItem = (
  companyId: string,
  fields: FieldsOf<typeof connectedDomainEntity.item>,
): ConnectedDomainItem =>
  connectedDomainEntity.item({
    ...connectedDomainKey(companyId, fields.domain),
    type: 'connectedDomain',
    ...fields,
  });

export const domainReputationItem = (
  companyId: string,
  fields: FieldsOf<typeof domainReputationEntity.item>,
): DomainReputationItem =>
  domainReputationEntity.item({
    ...domainReputationKey(companyId, fields.domain, fields.year),
    type: 'domainReputation',
    ...fields,
  });

/** USER#<email>; an active user (one with a userId) is also found by id (gsi1). */
export const userItem = (companyId: string, fields: FieldsOf<typeof userEntity.item>): UserItem =>
  userEntity.item({
    ...userKey(companyId, fields.email),
    ...(fields.userId === undefined ? {} : userIdIndex(companyId, fields.userId)),
    type: 'user',
    ...fields,
  });

export const safetyNetMailboxItem = (
  companyId: string,
  fields: FieldsOf<typeof safetyNetMailboxEntity.item>,
): SafetyNetMailboxItem =>
  safetyNetMailboxEntity.item({
    ...safetyNetMailboxKey(companyId, fields.email),
    ...safetyNetMailboxIdIndex(companyId, fields.id),
    type: 'safetyNetMailbox',
    ...fields,
  });

export const safetyNetSequenceItem = (
  companyId: string,
  fields: FieldsOf<typeof safetyNetSequenceEntity.item>,
): SafetyNetSequenceItem =>
  safetyNetSequenceEntity.item({
    ...safetyNetSequenceKey(companyId, fields.service, fields.crmSequenceId, fields.owner.email),
    ...safetyNetSequenceIdIndex(companyId, fields.id),
    type: 'safetyNetSequence',
    ...fields,
  });
