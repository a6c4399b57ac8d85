// The workspace's row types (what the API returns, as sorted JSON) and how each list packs them
// into its view. Field names follow docs/api.md "Workspace data".
import { z } from 'zod';
import { reputationRangeNames } from './dates';
import { allFacet, type ViewSpec } from './views';
import { connectionStatuses, sequenceServices } from '../../store/entities/workspace';

// The stored items' enumerations (declared with the items) are the API's.
export { connectionStatuses, sequenceServices };
export type ConnectionStatus = (typeof connectionStatuses)[number];
export type SequenceService = (typeof sequenceServices)[number];
export const userStatuses = ['active', 'invited'] as const;
export type UserStatus = (typeof userStatuses)[number];
export const userRoles = ['member', 'admin'] as const;
export type UserRole = (typeof userRoles)[number];

/** Invites last 7 days (docs/api.md). */
export const inviteLifetimeMs = 7 * 86_400_000;

export interface Person {
  email: string;
  firstName: string;
  lastName: string;
}

export interface MailboxRow {
  id: string;
  email: string;
  domain: string;
  provider: string;
  connectionStatus: ConnectionStatus;
  connectedAt: string;
  statusUpdatedAt: string;
  owner: Person;
}

export interface DomainRow {
  domain: string;
  mailboxCount: number;
  currentReputation: number | null;
}

export interface UserRow {
  email: string;
  /** null for an invited user (docs/api.md). */
  id: string | null;
  name: string;
  role: UserRole;
  status: UserStatus;
  createdAt: string | null;
  inviteExpiresAt: string | null;
  mailboxes: { email: string; id: string }[];
}

export interface Integration {
  service: SequenceService;
  externalId: string | null;
}

export interface SafetyNetMailboxRow {
  id: string;
  email: string;
  activated: boolean;
  integrations: Integration[];
}

export interface SequenceRow {
  id: string;
  name: string;
  crmSequenceId: string;
  service: SequenceService;
  activated: boolean;
  owner: Person;
}

// The response shapes of the workspace endpoints (docs/openapi.json is built from these).
const isoTime = z.string().describe('ISO 8601 timestamp (UTC)');
const isoDate = z.string().describe('YYYY-MM-DD (UTC)');
const reputation = z.number().int().min(0).max(100);

const personSchema = z.object({ email: z.string(), firstName: z.string(), lastName: z.string() });

export const mailboxBodySchema = z.object({
  connectedAt: isoTime,
  connectionStatus: z.enum(connectionStatuses),
  domain: z.string(),
  email: z.string(),
  id: z.string(),
  owner: personSchema,
  provider: z.string(),
  statusUpdatedAt: isoTime,
});

export const domainRowSchema = z.object({
  currentReputation: reputation.nullable(),
  domain: z.string(),
  mailboxCount: z.number().int().nonnegative(),
}) satisfies z.ZodType<DomainRow>;

/** A daily reputation series over a window: the mean over the window's known days, and each day. */
export const historyFields = {
  startDate: isoDate,
  endDate: isoDate,
  reputation: reputation.nullable().describe('Mean over the window; null without data'),
  history: z.array(z.object({ date: isoDate, reputation: reputation.nullable() })),
};

export const reputationRangeSchema = z.object({
  name: z.enum(reputationRangeNames),
  startDate: isoDate,
  endDate: isoDate,
});

export const userBodySchema = z.object({
  createdAt: isoTime.nullable().optional().describe('Active users only'),
  email: z.string(),
  id: z.string().nullable().describe('null for an invited user'),
  inviteExpiresAt: isoTime.nullable().optional().describe('Invited users only'),
  mailboxes: z.array(z.object({ email: z.string(), id: z.string() })),
  name: z.string(),
  role: z.enum(userRoles),
  status: z.enum(userStatuses),
});

export const safetyNetMailboxBodySchema = z.object({
  activated: z.boolean(),
  email: z.string(),
  id: z.string(),
  integrations: z.array(z.object({ externalId: z.string().nullable(), service: z.enum(sequenceServices) })),
});

export const sequenceBodySchema = z.object({
  activated: z.boolean(),
  crmSequenceId: z.string(),
  id: z.string(),
  name: z.string(),
  owner: personSchema,
  service: z.enum(sequenceServices),
});

/** A list page: `{limit, offset, total, <key>: rows}` (docs/api.md names each list's key). */
export function pageSchema<K extends string, R extends z.ZodType>(key: K, row: R) {
  return z.object({
    limit: z.number().int(),
    offset: z.number().int(),
    total: z.number().int().nonnegative(),
    ...({ [key]: z.array(row) } as { [P in K]: z.ZodArray<R> }),
  });
}

/** Plain code-unit order: deterministic and the same in every runtime (no locale). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export const mailboxView: ViewSpec<MailboxRow> = {
  kind: 'cmbx',
  encode: (r) => [
    r.id,
    r.email,
    r.domain,
    r.provider,
    r.connectionStatus,
    r.connectedAt,
    r.statusUpdatedAt,
    r.owner.email,
    r.owner.firstName,
    r.owner.lastName,
  ],
  decode: (v) => ({
    id: v[0] as string,
    email: v[1] as string,
    domain: v[2] as string,
    provider: v[3] as string,
    connectionStatus: v[4] as ConnectionStatus,
    connectedAt: v[5] as string,
    statusUpdatedAt: v[6] as string,
    owner: { email: v[7] as string, firstName: v[8] as string, lastName: v[9] as string },
  }),
  compare: (a, b) => compareText(a.email, b.email),
  identity: (r) => r.email,
  facets: (r) => [`connectionStatus=${r.connectionStatus}`],
};

export const domainView: ViewSpec<DomainRow> = {
  kind: 'cdom',
  encode: (r) => [r.domain, r.mailboxCount, r.currentReputation],
  decode: (v) => ({
    domain: v[0] as string,
    mailboxCount: v[1] as number,
    currentReputation: v[2] as number | null,
  }),
  compare: (a, b) => compareText(a.domain, b.domain),
  identity: (r) => r.domain,
};

/** Users have no facets: expired invites drop out at read time, so the list is always read whole (it is small). */
export const userView: ViewSpec<UserRow> = {
  kind: 'users',
  encode: (r) => [
    r.email,
    r.id,
    r.name,
    r.role,
    r.status,
    r.createdAt,
    r.inviteExpiresAt,
    r.mailboxes.map((m) => [m.email, m.id]),
  ],
  decode: (v) => ({
    email: v[0] as string,
    id: v[1] as string | null,
    name: v[2] as string,
    role: v[3] as UserRole,
    status: v[4] as UserStatus,
    createdAt: v[5] as string | null,
    inviteExpiresAt: v[6] as string | null,
    mailboxes: (v[7] as [string, string][]).map(([email, id]) => ({ email, id })),
  }),
  compare: (a, b) => compareText(a.email, b.email),
  identity: (r) => r.email,
};

export const safetyNetMailboxView: ViewSpec<SafetyNetMailboxRow> = {
  kind: 'snmbx',
  encode: (r) => [r.id, r.email, r.activated ? 1 : 0, r.integrations.map((i) => [i.service, i.externalId])],
  decode: (v) => ({
    id: v[0] as string,
    email: v[1] as string,
    activated: v[2] === 1,
    integrations: (v[3] as [SequenceService, string | null][]).map(([service, externalId]) => ({
      service,
      externalId,
    })),
  }),
  compare: (a, b) => compareText(a.email, b.email),
  identity: (r) => r.id,
  facets: (r) => [`activated=${r.activated}`],
};

function compareSequences(a: SequenceRow, b: SequenceRow): number {
  return (
    compareText(a.name, b.name) ||
    compareText(a.crmSequenceId, b.crmSequenceId) ||
    compareText(a.owner.email, b.owner.email) ||
    compareText(a.id, b.id)
  );
}

export const sequenceView: ViewSpec<SequenceRow> = {
  kind: 'snseq',
  encode: (r) => [
    r.id,
    r.name,
    r.crmSequenceId,
    r.service,
    r.activated ? 1 : 0,
    r.owner.email,
    r.owner.firstName,
    r.owner.lastName,
  ],
  decode: (v) => ({
    id: v[0] as string,
    name: v[1] as string,
    crmSequenceId: v[2] as string,
    service: v[3] as SequenceService,
    activated: v[4] === 1,
    owner: { email: v[5] as string, firstName: v[6] as string, lastName: v[7] as string },
  }),
  compare: compareSequences,
  identity: (r) => r.id,
  facets: (r) => [
    `activated=${r.activated}`,
    `service=${r.service}`,
    `activated=${r.activated}&service=${r.service}`,
  ],
};

/** The facet of a set of filters: `name=value` pairs of the given ones, in name order. */
export function facetOf(filters: Record<string, string | boolean | undefined>): string {
  return (
    Object.keys(filters)
      .filter((name) => filters[name] !== undefined)
      .sort()
      .map((name) => `${name}=${filters[name]}`)
      .join('&') || allFacet
  );
}

/** The API shape of a user: createdAt only on active users, inviteExpiresAt only on invited ones. */
export function userBody(row: UserRow): z.infer<typeof userBodySchema> {
  return {
    email: row.email,
    id: row.status === 'active' ? row.id : null,
    mailboxes: row.mailboxes,
    name: row.name,
    role: row.role,
    status: row.status,
    ...(row.status === 'active' ? { createdAt: row.createdAt } : { inviteExpiresAt: row.inviteExpiresAt }),
  };
}

/** An invite past its expiry no longer exists for the API nor holds a seat (docs/api.md). */
export function isLiveUser(row: UserRow, now: Date): boolean {
  return row.status === 'active' || (row.inviteExpiresAt !== null && row.inviteExpiresAt > now.toISOString());
}
