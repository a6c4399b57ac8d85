// The workspace items (design in docs/workspace.md): connected mailboxes and domains with their yearly
// reputation blocks, Safety Net mailboxes and sequences, the packed list views, the import lock and
// the invite emails' outbox. Keys: the workspace block of ../keys.ts.
import { any, anyOf, boolean, Entity, item, list, map, nul, number, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const keys = { pk: string().key(), sk: string().key() };
const person = map({ email: string(), firstName: string(), lastName: string() });
const reputation = {
  currentReputation: anyOf(number(), nul()),
  currentReputationDate: anyOf(string(), nul()),
};

/** CMBX#<email>, gsi1 by id, gsi2 by owner. */
const connectedMailbox = new Entity({
  name: 'connectedMailbox',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    gsi1pk: string(),
    gsi1sk: string(),
    gsi2pk: string(),
    gsi2sk: string(),
    type: string().const('connectedMailbox'),
    id: string(),
    email: string(),
    domain: string(),
    provider: string(),
    connectionStatus: string(),
    connectedAt: string(),
    statusUpdatedAt: string(),
    owner: person,
    ...reputation,
  }),
});
export const connectedMailboxEntity = declared(connectedMailbox);

/** CMBXREP#<mailboxId>#<YYYY>: one packed year of daily values. */
const mailboxReputation = new Entity({
  name: 'mailboxReputation',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('mailboxReputation'),
    mailboxId: string(),
    year: number(),
    days: string(),
  }),
});
export const mailboxReputationEntity = declared(mailboxReputation);

/** CDOM#<domain>: derived from its mailboxes. */
const connectedDomain = new Entity({
  name: 'connectedDomain',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('connectedDomain'),
    domain: string(),
    mailboxCount: number(),
    ...reputation,
  }),
});
export const connectedDomainEntity = declared(connectedDomain);

/** CDOMREP#<domain>#<YYYY>: the rounded daily mean of its mailboxes. */
const domainReputation = new Entity({
  name: 'domainReputation',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('domainReputation'),
    domain: string(),
    year: number(),
    days: string(),
  }),
});
export const domainReputationEntity = declared(domainReputation);

/** SNMBX#<email>, gsi1 by id. */
const safetyNetMailbox = new Entity({
  name: 'safetyNetMailbox',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    gsi1pk: string(),
    gsi1sk: string(),
    type: string().const('safetyNetMailbox'),
    id: string(),
    email: string(),
    activated: boolean(),
    integrations: list(map({ service: string(), externalId: anyOf(string(), nul()) })),
  }),
});
export const safetyNetMailboxEntity = declared(safetyNetMailbox);

/** SNSEQ#<service>#<crmId>#<ownerEmail>, gsi1 by id: one row per owner of a sequence. */
const safetyNetSequence = new Entity({
  name: 'safetyNetSequence',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    gsi1pk: string(),
    gsi1sk: string(),
    type: string().const('safetyNetSequence'),
    id: string(),
    service: string(),
    crmSequenceId: string(),
    name: string(),
    activated: boolean(),
    owner: person,
  }),
});
export const safetyNetSequenceEntity = declared(safetyNetSequence);

/** WSLOCK: the lease an import holds. */
const workspaceLock = new Entity({
  name: 'workspaceLock',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({ ...keys, type: string().const('workspaceLock'), token: string(), until: string() }),
});
export const workspaceLockEntity = declared(workspaceLock);

/** VIEW#<kind>: the version of a packed list, its chunk count and row counts per facet. */
const listViewHead = new Entity({
  name: 'listViewHead',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('listViewHead'),
    version: number(),
    chunks: number(),
    rows: number().optional(),
    counts: any().optional(),
  }),
});
export const listViewHeadEntity = declared(listViewHead);

/** VIEW#<kind>#<nnnn>: sorted rows of one list as a JSON array of arrays. */
const listViewChunk = new Entity({
  name: 'listViewChunk',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('listViewChunk'),
    version: number(),
    count: number(),
    rows: string(),
  }),
});
export const listViewChunkEntity = declared(listViewChunk);

/** INVITEMAIL#<outboxId>: an invite email to send, pending until delivered (ttl 30 days). */
const inviteEmail = new Entity({
  name: 'inviteEmail',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    ...keys,
    type: string().const('inviteEmail'),
    outboxId: string(),
    companyId: string(),
    to: string(),
    name: string(),
    role: string(),
    invitedBy: string(),
    inviteExpiresAt: string(),
    status: string().enum('pending', 'sent'),
    createdAt: string(),
    sentAt: string().optional(),
    ttl: number(),
  }),
});
export const inviteEmailEntity = declared(inviteEmail);
