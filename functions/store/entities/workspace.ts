// The workspace items (design in docs/workspace.md): connected mailboxes and domains with their yearly
// reputation blocks, Safety Net mailboxes and sequences, the packed list views, the import lock and
// the invite emails' outbox. Keys: the workspace block of ../keys.ts.
import { any, anyOf, boolean, Entity, item, list, map, nul, number, string } from 'dynamodb-toolbox';
import { declared } from './declare';
import { mailvetTable } from './table';

const options = { table: mailvetTable, entityAttribute: false, timestamps: false } as const;
const keys = { pk: string().key(), sk: string().key() };
const person = map({ email: string(), firstName: string(), lastName: string() });
const reputation = {
  currentReputation: anyOf(number(), nul()),
  currentReputationDate: anyOf(string(), nul()),
};

/** CMBX#<email>, gsi1 by id, gsi2 by owner. */
export const connectedMailboxEntity = declared(
  new Entity({
    name: 'connectedMailbox',
    ...options,
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
  }),
);

/** CMBXREP#<mailboxId>#<YYYY>: one packed year of daily values. */
export const mailboxReputationEntity = declared(
  new Entity({
    name: 'mailboxReputation',
    ...options,
    schema: item({
      ...keys,
      type: string().const('mailboxReputation'),
      mailboxId: string(),
      year: number(),
      days: string(),
    }),
  }),
);

/** CDOM#<domain>: derived from its mailboxes. */
export const connectedDomainEntity = declared(
  new Entity({
    name: 'connectedDomain',
    ...options,
    schema: item({
      ...keys,
      type: string().const('connectedDomain'),
      domain: string(),
      mailboxCount: number(),
      ...reputation,
    }),
  }),
);

/** CDOMREP#<domain>#<YYYY>: the rounded daily mean of its mailboxes. */
export const domainReputationEntity = declared(
  new Entity({
    name: 'domainReputation',
    ...options,
    schema: item({
      ...keys,
      type: string().const('domainReputation'),
      domain: string(),
      year: number(),
      days: string(),
    }),
  }),
);

/** SNMBX#<email>, gsi1 by id. */
export const safetyNetMailboxEntity = declared(
  new Entity({
    name: 'safetyNetMailbox',
    ...options,
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
  }),
);

/** SNSEQ#<service>#<crmId>#<ownerEmail>, gsi1 by id: one row per owner of a sequence. */
export const safetyNetSequenceEntity = declared(
  new Entity({
    name: 'safetyNetSequence',
    ...options,
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
  }),
);

/** WSLOCK: the lease an import holds. */
export const workspaceLockEntity = declared(
  new Entity({
    name: 'workspaceLock',
    ...options,
    schema: item({ ...keys, type: string().const('workspaceLock'), token: string(), until: string() }),
  }),
);

/** VIEW#<kind>: the version of a packed list, its chunk count and row counts per facet. */
export const listViewHeadEntity = declared(
  new Entity({
    name: 'listViewHead',
    ...options,
    schema: item({
      ...keys,
      type: string().const('listViewHead'),
      version: number(),
      chunks: number(),
      rows: number().optional(),
      counts: any().optional(),
    }),
  }),
);

/** VIEW#<kind>#<nnnn>: sorted rows of one list as a JSON array of arrays. */
export const listViewChunkEntity = declared(
  new Entity({
    name: 'listViewChunk',
    ...options,
    schema: item({
      ...keys,
      type: string().const('listViewChunk'),
      version: number(),
      count: number(),
      rows: string(),
    }),
  }),
);

/** INVITEMAIL#<outboxId>: an invite email to send, pending until delivered (ttl 30 days). */
export const inviteEmailEntity = declared(
  new Entity({
    name: 'inviteEmail',
    ...options,
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
  }),
);
