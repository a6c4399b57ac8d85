// The workspace items (design in docs/workspace.md): connected mailboxes and domains with their yearly
// reputation blocks, Safety Net mailboxes and sequences, the packed list views, the import lock and
// the invite emails' outbox. Keys: the workspace block of ../keys.ts.
import { anyOf, boolean, list, map, nul, number, record, string } from 'dynamodb-toolbox';
import { MalformedItemError, storedEntity, type ItemOf, type StoredItem } from './declare';

/** A connected mailbox's connection states (the API's enum is this list). */
export const connectionStatuses = ['connected', 'credentials_error'] as const;
/** The CRMs a Safety Net sequence or integration comes from (the API's enum is this list). */
export const sequenceServices = ['outreach', 'salesloft'] as const;

const person = map({ email: string(), firstName: string(), lastName: string() });
const reputation = {
  currentReputation: anyOf(number(), nul()),
  currentReputationDate: anyOf(string(), nul()),
};

/** CMBX#<email>, gsi1 by id, gsi2 by owner. */
export const connectedMailboxEntity = storedEntity('connectedMailbox', {
  gsi1pk: string(),
  gsi1sk: string(),
  gsi2pk: string(),
  gsi2sk: string(),
  type: string().const('connectedMailbox'),
  id: string(),
  email: string(),
  domain: string(),
  provider: string(),
  connectionStatus: string().enum(...connectionStatuses),
  connectedAt: string(),
  statusUpdatedAt: string(),
  owner: person,
  ...reputation,
});

/** CMBXREP#<mailboxId>#<YYYY>: one packed year of daily values. */
export const mailboxReputationEntity = storedEntity('mailboxReputation', {
  type: string().const('mailboxReputation'),
  mailboxId: string(),
  year: number(),
  days: string(),
});

/**
 * The three attributes of a mailbox reputation block a list page needs, checked by hand rather than
 * by the library: a page of 1,000 mailboxes reads 1,000 blocks, where the library's parse costs more
 * than the rest of the page (docs/entities.md).
 */
export function parseMailboxReputationBlock(
  stored: StoredItem,
): Pick<MailboxReputationItem, 'mailboxId' | 'year' | 'days'> {
  const { mailboxId, year, days } = stored;
  if (typeof mailboxId !== 'string' || typeof year !== 'number' || typeof days !== 'string')
    throw new MalformedItemError('mailboxReputation', stored, 'mailboxId, year or days missing or mistyped');
  return { mailboxId, year, days };
}

/** CDOM#<domain>: derived from its mailboxes. */
export const connectedDomainEntity = storedEntity('connectedDomain', {
  type: string().const('connectedDomain'),
  domain: string(),
  mailboxCount: number(),
  ...reputation,
});

/** CDOMREP#<domain>#<YYYY>: the rounded daily mean of its mailboxes. */
export const domainReputationEntity = storedEntity('domainReputation', {
  type: string().const('domainReputation'),
  domain: string(),
  year: number(),
  days: string(),
});

/** SNMBX#<email>, gsi1 by id. */
export const safetyNetMailboxEntity = storedEntity('safetyNetMailbox', {
  gsi1pk: string(),
  gsi1sk: string(),
  type: string().const('safetyNetMailbox'),
  id: string(),
  email: string(),
  activated: boolean(),
  integrations: list(
    map({ service: string().enum(...sequenceServices), externalId: anyOf(string(), nul()) }),
  ),
});

/** SNSEQ#<service>#<crmId>#<ownerEmail>, gsi1 by id: one row per owner of a sequence. */
export const safetyNetSequenceEntity = storedEntity('safetyNetSequence', {
  gsi1pk: string(),
  gsi1sk: string(),
  type: string().const('safetyNetSequence'),
  id: string(),
  service: string().enum(...sequenceServices),
  crmSequenceId: string(),
  name: string(),
  activated: boolean(),
  owner: person,
});

/** WSLOCK: the lease an import holds. */
export const workspaceLockEntity = storedEntity('workspaceLock', {
  type: string().const('workspaceLock'),
  token: string(),
  until: string(),
});

/** VIEW#<kind>: the version of a packed list, its chunk count and row counts per facet. */
export const listViewHeadEntity = storedEntity('listViewHead', {
  type: string().const('listViewHead'),
  version: number(),
  chunks: number(),
  rows: number().optional(),
  /** For each facet, its row count in every chunk. */
  counts: record(string(), list(number())).optional(),
});

/** VIEW#<kind>#<nnnn>: sorted rows of one list as a JSON array of arrays. */
export const listViewChunkEntity = storedEntity('listViewChunk', {
  type: string().const('listViewChunk'),
  version: number(),
  count: number(),
  rows: string(),
});

/**
 * INVITEMAIL#<outboxId>: an email of the outbox (functions/domain/mail/send-email.ts), pending until
 * delivered (ttl 30 days). The type and key keep their names from when invites were its only kind; an
 * item without `kind` is an invite. `subject` and `text` are what is sent (removed once it is sent);
 * an invite written before they existed has only its invite fields, and its text is made from them.
 */
export const inviteEmailEntity = storedEntity('inviteEmail', {
  type: string().const('inviteEmail'),
  outboxId: string(),
  companyId: string(),
  kind: string().enum('invite', 'password_reset', 'safety_net_prevention').optional(),
  to: string(),
  subject: string().optional(),
  text: string().optional(),
  name: string().optional(),
  role: string().optional(),
  invitedBy: string().optional(),
  inviteExpiresAt: string().optional(),
  status: string().enum('pending', 'sent'),
  createdAt: string(),
  sentAt: string().optional(),
  ttl: number(),
});

export type ConnectedMailboxItem = ItemOf<typeof connectedMailboxEntity>;
export type MailboxReputationItem = ItemOf<typeof mailboxReputationEntity>;
export type ConnectedDomainItem = ItemOf<typeof connectedDomainEntity>;
export type DomainReputationItem = ItemOf<typeof domainReputationEntity>;
export type SafetyNetMailboxItem = ItemOf<typeof safetyNetMailboxEntity>;
export type SafetyNetSequenceItem = ItemOf<typeof safetyNetSequenceEntity>;
export type WorkspaceLockItem = ItemOf<typeof workspaceLockEntity>;
export type ListViewHeadItem = ItemOf<typeof listViewHeadEntity>;
export type ListViewChunkItem = ItemOf<typeof listViewChunkEntity>;
export type InviteEmailItem = ItemOf<typeof inviteEmailEntity>;
