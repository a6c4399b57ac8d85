// The stored workspace items, built from their entities (./entities/workspace.ts): keys and index keys
// come from the declarations' key builders here, so the import and the API use cases hand over
// attributes only and never assemble keys themselves.
import { userEntity } from './entities/accounts';
import {
  connectedDomainEntity,
  connectedMailboxEntity,
  domainReputationEntity,
  mailboxReputationEntity,
  safetyNetMailboxEntity,
  safetyNetSequenceEntity,
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

/** CMBX#<email>, found by id (gsi1) and by owner (gsi2). */
export const connectedMailboxItem = (companyId: string, fields: ConnectedMailboxFields): StoredItem =>
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
): StoredItem =>
  mailboxReputationEntity.item({
    ...mailboxReputationKey(companyId, fields.mailboxId, fields.year),
    type: 'mailboxReputation',
    ...fields,
  });

export const connectedDomainItem = (
  companyId: string,
  fields: FieldsOf<typeof connectedDomainEntity.item>,
): StoredItem =>
  connectedDomainEntity.item({
    ...connectedDomainKey(companyId, fields.domain),
    type: 'connectedDomain',
    ...fields,
  });

export const domainReputationItem = (
  companyId: string,
  fields: FieldsOf<typeof domainReputationEntity.item>,
): StoredItem =>
  domainReputationEntity.item({
    ...domainReputationKey(companyId, fields.domain, fields.year),
    type: 'domainReputation',
    ...fields,
  });

/** USER#<email>; an active user (one with a userId) is also found by id (gsi1). */
export const userItem = (companyId: string, fields: FieldsOf<typeof userEntity.item>): StoredItem =>
  userEntity.item({
    ...userKey(companyId, fields.email),
    ...(fields.userId === undefined ? {} : userIdIndex(companyId, fields.userId)),
    type: 'user',
    ...fields,
  });

export const safetyNetMailboxItem = (
  companyId: string,
  fields: FieldsOf<typeof safetyNetMailboxEntity.item>,
): StoredItem =>
  safetyNetMailboxEntity.item({
    ...safetyNetMailboxKey(companyId, fields.email),
    ...safetyNetMailboxIdIndex(companyId, fields.id),
    type: 'safetyNetMailbox',
    ...fields,
  });

export const safetyNetSequenceItem = (
  companyId: string,
  fields: FieldsOf<typeof safetyNetSequenceEntity.item>,
): StoredItem =>
  safetyNetSequenceEntity.item({
    ...safetyNetSequenceKey(companyId, fields.service, fields.crmSequenceId, fields.owner.email),
    ...safetyNetSequenceIdIndex(companyId, fields.id),
    type: 'safetyNetSequence',
    ...fields,
  });
