// The workspace import format (docs/workspace.md): what the mailbox-connection service, the
// Outreach/Salesloft sync and the daily reputation job hand over, checked by one zod schema.
import { z } from 'zod';
import { isDate } from './dates';
import { connectionStatuses, sequenceServices, userRoles, userStatuses } from './model';

const timestamp = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());
const email = z.email().transform((value) => value.toLowerCase());
const person = z.object({ email, firstName: z.string(), lastName: z.string() });

/** Daily reputation by UTC date; null clears a day. */
const reputation = z.record(
  z.string().refine(isDate, { error: 'reputation keys must be dates in YYYY-MM-DD format' }),
  z.number().int().min(0).max(100).nullable(),
);

const importConnectedMailbox = z.object({
  id: z.uuid().optional(),
  email,
  provider: z.string().min(1),
  connectionStatus: z.enum(connectionStatuses),
  connectedAt: timestamp,
  statusUpdatedAt: timestamp.optional(),
  owner: person,
  reputation: reputation.optional(),
});

const importUser = z
  .object({
    id: z.uuid().optional(),
    email,
    name: z.string().default(''),
    role: z.enum(userRoles).default('member'),
    status: z.enum(userStatuses).default('active'),
    createdAt: timestamp.optional(),
    inviteExpiresAt: timestamp.optional(),
  })
  .refine((u) => u.status === 'active' || u.id === undefined, { error: 'an invited user has no id' });

const importSafetyNetMailbox = z.object({
  id: z.uuid().optional(),
  email,
  activated: z.boolean().optional(),
  integrations: z
    .array(z.object({ service: z.enum(sequenceServices), externalId: z.string().nullable().default(null) }))
    .min(1),
});

const importSequence = z.object({
  id: z.uuid().optional(),
  service: z.enum(sequenceServices),
  crmSequenceId: z.string().min(1),
  name: z.string(),
  activated: z.boolean().optional(),
  owner: person,
});

export const workspaceImportSchema = z.object({
  companyId: z.string().min(1),
  connectedMailboxes: z.array(importConnectedMailbox).default([]),
  users: z.array(importUser).default([]),
  safetyNetMailboxes: z.array(importSafetyNetMailbox).default([]),
  safetyNetSequences: z.array(importSequence).default([]),
});

export type WorkspaceImport = z.infer<typeof workspaceImportSchema>;
export type WorkspaceImportInput = z.input<typeof workspaceImportSchema>;
