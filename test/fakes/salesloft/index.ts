// An offline Salesloft (REST API v2 + OAuth) for tests, built from the published API with its quirks:
// the platform reference (sales-engagement-and-placement.md) §2 and §6.2; sources in test/fakes/README.md.
import {
  Clock,
  WebhookSender,
  controlOverHttp,
  emailKey,
  startFakeServer,
  type FakeRequest,
  type FakeResponse,
  type FakeServerOptions,
  type RequestRecord,
} from '../http';
import { OAuthServer } from '../oauth';
import { SalesloftStore, present, type Membership, type TableName, type User } from './store';
import {
  SalesloftError,
  deletePerson,
  deliver,
  invalid,
  notFound,
  removeMembership,
  upsertMembership,
  type SalesloftState,
} from './records';
import { salesloftControl, type SalesloftControl } from './control';

export type { SalesloftControl } from './control';

export interface SalesloftFakeOptions extends FakeServerOptions {
  /** Access-token life: 7200 s (§2.2 [T]). */
  accessTokenSeconds?: number;
  /** The scopes the app was registered with; the redirect and token answers echo them. */
  scopes?: string[];
  /** Cost budget per team per minute: 600 (§2.4 [P]). */
  costPerMinute?: number;
  /** Pause between the 3 further attempts at a failed webhook: 15 s (§2.6 [P]). */
  webhookRetryMs?: number;
  /** Whether a 429 carries Retry-After ([UNVERIFIED], §2.4): on by default; off proves a client copes. */
  retryAfterHeader?: boolean;
}

export interface SalesloftFake {
  /** What SALESLOFT_API_URL gets: `<base>/v2`. */
  apiUrl: string;
  /** What SALESLOFT_OAUTH_URL gets: `<base>/oauth`. */
  oauthUrl: string;
  /** `<base>/_control`: the control methods over HTTP (`POST /_control/<method>`, JSON array of args). */
  controlUrl: string;
  clientId: string;
  clientSecret: string;
  control: SalesloftControl;
  stop(): Promise<void>;
}

const DEFAULT_SCOPES = [
  'users:read',
  'people:read',
  'people:write',
  'cadences:read',
  'cadence_memberships:read',
  'cadence_memberships:write',
  'emails:read',
  'activities:read',
  'steps:read',
  'webhooks:read',
  'webhooks:write',
];

export async function startSalesloftFake(options: SalesloftFakeOptions = {}): Promise<SalesloftFake> {
  const clock = new Clock();
  const store = new SalesloftStore(clock);
  const settings: SalesloftState['settings'] = {
    apiUrl: '',
    defaultPageSize: 25, // per_page defaults to 25, ranges over 1..100 (§2.3 [P])
    maxPageSize: 100,
    costPerMinute: options.costPerMinute ?? 600,
    webhookRetryMs: options.webhookRetryMs ?? 15_000,
    retryAfterHeader: options.retryAfterHeader ?? true,
    blockedUntil: 0,
  };
  const oauth = new OAuthServer(clock, {
    accessTtlSeconds: options.accessTokenSeconds ?? 7200,
    refreshTtlSeconds: null, // a refresh token's own life is not documented
    maxActiveRefreshTokens: null,
    rotationRevokesOlder: true, // "when a new refresh token is issued, all old ones are revoked" (§2.2 [T])
    issueIntervalMs: 0,
    // The redirect comes back with code, context and scope (§2.2 [P]); what `context` holds is [UNVERIFIED].
    redirectExtras: (grant) => ({
      context: `team:${store.tables.users.get(grant.userId)?.team_id ?? 1}`,
      scope: grant.scopes.join(' '),
    }),
    defaultScopes: options.scopes ?? DEFAULT_SCOPES,
    tooSoon: () => ({ status: 429, body: { error: 'rate_limited' } }),
  });
  const state: SalesloftState = {
    clock,
    store,
    oauth,
    webhooks: new WebhookSender(() => ({
      retries: 3,
      intervalMs: settings.webhookRetryMs,
      retryOnHttpError: true,
    })),
    requests: [],
    buckets: new Map(),
    settings,
  };
  store.onEvent = (eventType, table, record) => deliver(state, eventType, table, record);
  const control = salesloftControl(state);
  const server = await startFakeServer(options, async (req) => {
    const path = req.url.pathname;
    if (path.startsWith('/_control/')) return controlOverHttp(control, req);
    const record: RequestRecord = {
      at: clock.now(),
      method: req.method,
      path: path + req.url.search,
      status: 0,
      userId: null,
    };
    const res = route(state, req, record);
    record.status = res.status;
    state.requests.push(record);
    return res;
  });
  settings.apiUrl = `${server.baseUrl}/v2`;
  return {
    apiUrl: settings.apiUrl,
    oauthUrl: `${server.baseUrl}/oauth`,
    controlUrl: `${server.baseUrl}/_control`,
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    control,
    stop: server.stop,
  };
}

/** The deep-page surcharge (§2.4 [P]): page 101-150 costs 3, 151-250 8, 251-500 10, 501+ 30. */
function costOf(page: number): number {
  if (page > 500) return 30;
  if (page > 250) return 10;
  if (page > 150) return 8;
  if (page > 100) return 3;
  return 1;
}

function route(state: SalesloftState, req: FakeRequest, record: RequestRecord): FakeResponse {
  const path = req.url.pathname.replace(/\.json$/, ''); // the legacy `.json` suffix (§2.1 [S])
  if (path === '/oauth/authorize' && req.method === 'GET') {
    // Scopes are the app's, set at registration: a `scope` in the request changes nothing.
    req.url.searchParams.delete('scope');
    return state.oauth.authorize(req, (id) => state.store.tables.users.has(id));
  }
  if (path === '/oauth/token' && req.method === 'POST') return state.oauth.token(req);
  if (!path.startsWith('/v2/')) return { status: 404, body: { error: 'Not Found' } };
  const auth = state.oauth.authenticate(req.headers.authorization);
  if (!auth.ok) {
    const error =
      auth.reason === 'missing'
        ? "No Bearer Token attached to request, expected 'Authorization: Bearer <token>'" // §2.1 [T]
        : 'Invalid Bearer Token'; // the words for an expired or revoked token are [UNVERIFIED]
    return { status: 401, body: { error } };
  }
  record.userId = auth.userId;
  const user = state.store.tables.users.get(auth.userId)!;
  const page = Math.max(1, Number.parseInt(req.url.searchParams.get('page') ?? '1', 10) || 1);
  const cost = costOf(page);
  const limit = spend(state, user.team_id, cost);
  if (limit.denied) return { status: 429, body: { error: 'Rate limit exceeded' }, headers: limit.headers };
  try {
    const res = api(state, req, path.slice('/v2/'.length).split('/'), user, auth.scopes);
    res.headers = { ...res.headers, ...limit.headers };
    return res;
  } catch (error) {
    if (error instanceof SalesloftError)
      return { status: error.status, body: error.body, headers: limit.headers };
    throw error;
  }
}

/** A 600-cost-a-minute bucket per team, shared by every token of the team (§2.4 [P]). */
function spend(
  state: SalesloftState,
  teamId: number,
  cost: number,
): { denied: boolean; headers: Record<string, string> } {
  const now = state.clock.now();
  let bucket = state.buckets.get(teamId);
  if (!bucket || bucket.resetAt <= now) {
    bucket = { resetAt: now + 60_000, used: 0 };
    state.buckets.set(teamId, bucket);
  }
  const blocked = state.settings.blockedUntil > now;
  const denied = blocked || bucket.used + cost > state.settings.costPerMinute;
  if (!denied) bucket.used += cost;
  const headers: Record<string, string> = {
    'x-ratelimit-endpoint-cost': String(cost),
    'x-ratelimit-remaining-minute': String(blocked ? 0 : state.settings.costPerMinute - bucket.used),
  };
  if (denied && state.settings.retryAfterHeader) {
    const until = blocked ? state.settings.blockedUntil : bucket.resetAt;
    headers['retry-after'] = String(Math.max(1, Math.ceil((until - now) / 1000)));
  }
  return { denied, headers };
}

type Filter = (record: Record<string, unknown>, values: string[]) => boolean;

const byId =
  (field: string): Filter =>
  (r, v) =>
    v.includes(String(r[field]));
const byBool =
  (field: string): Filter =>
  (r, v) =>
    String(r[field]) === v[0];

/** Each index endpoint's filters (§2.3-2.5 [P]/[T]) and the `sort_by` values it accepts. */
const LISTS: Record<string, { table: TableName; filters: Record<string, Filter>; sorts: string[] }> = {
  users: {
    table: 'users',
    filters: { ids: byId('id'), guid: byId('guid'), active: byBool('active') },
    sorts: ['id', 'created_at', 'updated_at', 'email'],
  },
  people: {
    table: 'people',
    filters: {
      ids: byId('id'),
      email_addresses: (r, v) => {
        const keys = v.map(emailKey);
        return ['email_address', 'secondary_email_address', 'personal_email_address'].some(
          (f) => typeof r[f] === 'string' && keys.includes(emailKey(r[f] as string)),
        );
      },
    },
    sorts: ['id', 'created_at', 'updated_at', 'email_address'],
  },
  cadences: {
    table: 'cadences',
    filters: { ids: byId('id'), team_cadence: byBool('team_cadence') },
    sorts: ['id', 'created_at', 'updated_at', 'name'],
  },
  steps: {
    table: 'steps',
    filters: { ids: byId('id'), cadence_id: byId('cadence_id'), type: byId('type') },
    sorts: ['id', 'created_at', 'updated_at'],
  },
  cadence_memberships: {
    table: 'cadence_memberships',
    filters: {
      ids: byId('id'),
      person_id: byId('person_id'),
      cadence_id: byId('cadence_id'),
      currently_on_cadence: byBool('currently_on_cadence'),
    },
    sorts: ['added_at', 'updated_at'], // sort_by=added_at|updated_at (§2.5 [P])
  },
  'activities/emails': {
    table: 'emails',
    filters: {
      ids: byId('id'),
      status: byId('status'),
      cadence_id: byId('cadence_id'),
      step_id: byId('step_id'),
      user_id: byId('user_id'),
      bounced: byBool('bounced'),
    },
    sorts: ['id', 'created_at', 'updated_at', 'send_after', 'sent_at'],
  },
};

/** Microseconds since the epoch, for `updated_at[gt]` etc. compared to the microsecond (§2.3 [P]). */
function micros(iso: string): number {
  const frac = /\.(\d+)/.exec(iso)?.[1] ?? '';
  return Date.parse(iso) * 1000 + Number((frac + '000000').slice(3, 6));
}

function list(
  state: SalesloftState,
  name: string,
  params: URLSearchParams,
  canReadContents: boolean,
  viewer: User,
): FakeResponse {
  const spec = LISTS[name]!;
  const values = (key: string) =>
    [...params.getAll(`${key}[]`), ...(params.get(key)?.split(',') ?? [])].filter(Boolean);
  const tests: Array<(r: Record<string, unknown>) => boolean> = [];
  // A non-admin sees only themselves in `GET /v2/users` (group visibility, §2.5 [T]; the strictest case):
  // a sync made through a rep's grant lists one user. Connect as an admin to see the team.
  if (name === 'users' && viewer.role !== 'Admin') tests.push((r) => r.id === viewer.id);
  const filtering: Record<string, unknown> = {};
  // Unknown filter names are ignored, not rejected (§2.3 [T]).
  for (const [key, test] of Object.entries(spec.filters)) {
    const v = values(key);
    if (v.length === 0) continue;
    filtering[key] = v.join(',');
    tests.push((r) => test(r, v));
  }
  for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
    const raw = params.get(`updated_at[${op}]`);
    if (raw === null || Number.isNaN(Date.parse(raw))) continue;
    const at = micros(raw);
    filtering[`updated_at[${op}]`] = raw;
    const cmp = {
      gt: (x: number) => x > at,
      gte: (x: number) => x >= at,
      lt: (x: number) => x < at,
      lte: (x: number) => x <= at,
    }[op];
    tests.push((r) => cmp(micros(r.updated_at as string)));
  }
  const sortBy = params.get('sort_by') ?? 'updated_at';
  if (!spec.sorts.includes(sortBy) && sortBy !== 'updated_at')
    throw invalid('sort_by', 'is not included in the list');
  const direction = (params.get('sort_direction') ?? 'DESC').toUpperCase();
  if (direction !== 'ASC' && direction !== 'DESC')
    throw invalid('sort_direction', 'is not included in the list');
  const rows = [
    ...(
      state.store.tables[spec.table] as unknown as Map<number, Record<string, unknown> & { id: number }>
    ).values(),
  ].filter((r) => tests.every((t) => t(r)));
  const key = (r: Record<string, unknown>) => {
    const v = r[sortBy];
    return typeof v === 'string' && /^\d{4}-/.test(v) ? micros(v) : (v as number | string | null);
  };
  rows.sort((a, b) => {
    const [x, y] = [key(a) ?? '', key(b) ?? ''];
    const c = x < y ? -1 : x > y ? 1 : a.id - b.id;
    return direction === 'ASC' ? c : -c;
  });
  // Out-of-range page and per_page are silently corrected and echoed (§2.3 [T]).
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const asked = Number.parseInt(params.get('per_page') ?? '', 10);
  const perPage = Number.isNaN(asked)
    ? state.settings.defaultPageSize
    : Math.min(state.settings.maxPageSize, Math.max(1, asked));
  const data = rows.slice((page - 1) * perPage, page * perPage); // past the end: [] with 200
  const paging: Record<string, unknown> = {
    per_page: perPage,
    current_page: page,
    next_page: page * perPage < rows.length ? page + 1 : null, // null on the last page
    prev_page: page > 1 ? page - 1 : null,
  };
  if (params.get('include_paging_counts') === 'true') {
    paging.total_pages = Math.ceil(rows.length / perPage);
    paging.total_count = rows.length;
  }
  return {
    status: 200,
    body: {
      metadata: { filtering, paging, sorting: { sort_by: sortBy, sort_direction: direction } },
      data: data.map((r) => present(spec.table, r as never, state.settings.apiUrl, canReadContents)),
    },
  };
}

function readJson(req: FakeRequest): Record<string, unknown> {
  if (req.body.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(req.body.toString('utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return Object.fromEntries(new URLSearchParams(req.body.toString('utf8')));
  }
}

function api(
  state: SalesloftState,
  req: FakeRequest,
  parts: string[],
  user: User,
  scopes: string[],
): FakeResponse {
  const { store } = state;
  const apiUrl = state.settings.apiUrl;
  const contents = scopes.includes('email_contents:read');
  const name = parts[0] === 'activities' ? `activities/${parts[1] ?? ''}` : (parts[0] ?? '');
  const rest = parts[0] === 'activities' ? parts.slice(2) : parts.slice(1);
  const ok = (table: TableName, record: unknown) => ({
    status: 200,
    body: { data: present(table, record as never, apiUrl, contents) },
  });
  if (name === 'me' && rest.length === 0 && req.method === 'GET') return ok('users', user);

  if (name === 'webhook_subscriptions') return subscriptions(state, req, rest, user);
  if (name === 'cadence_memberships' && req.method === 'POST' && rest.length === 0)
    return addMembership(state, req, user, contents);

  const spec = LISTS[name];
  if (!spec || rest.length > 1) throw notFound();
  if (rest.length === 0) {
    if (req.method !== 'GET') throw notFound();
    return list(state, name, req.url.searchParams, contents, user);
  }
  const id = Number(rest[0]);
  const record = (store.tables[spec.table] as Map<number, unknown>).get(id) as
    Record<string, unknown> | undefined;
  if (!record) throw notFound(); // a deleted person, cadence or user: 404 (§6.2.8)
  if (req.method === 'GET') return ok(spec.table, record);
  if (req.method === 'DELETE' && spec.table === 'cadence_memberships') {
    removeMembership(state, record as unknown as Membership);
    return { status: 204 };
  }
  if (req.method === 'DELETE' && spec.table === 'people') {
    deletePerson(state, id);
    return { status: 204 };
  }
  throw notFound();
}

/**
 * `POST /v2/cadence_memberships?person_id&cadence_id[&user_id]` (§2.5 [P]): one record per (person,
 * cadence), reused on re-add (`added_at` changes, `created_at` does not).
 */
function addMembership(state: SalesloftState, req: FakeRequest, user: User, contents: boolean): FakeResponse {
  const q = req.url.searchParams;
  const person = state.store.tables.people.get(Number(q.get('person_id')));
  const cadence = state.store.tables.cadences.get(Number(q.get('cadence_id')));
  if (!person) throw invalid('person', 'must exist');
  if (!cadence || cadence.current_state !== 'active') throw invalid('cadence', 'must be an active cadence');
  const userId = q.get('user_id') === null ? user.id : Number(q.get('user_id'));
  if (userId !== user.id && !cadence.team_cadence && cadence.owner_id !== userId) {
    throw new SalesloftError(403, { error: 'You cannot add people to a cadence on behalf of this user' });
  }
  const m = upsertMembership(state, person.id, cadence.id, userId);
  return { status: 200, body: { data: present('cadence_memberships', m, state.settings.apiUrl, contents) } };
}

/** `/v2/webhook_subscriptions`: `callback_url`, `callback_token`, `event_type` (§2.6 [T]). */
function subscriptions(state: SalesloftState, req: FakeRequest, rest: string[], user: User): FakeResponse {
  const table = state.store.tables.webhook_subscriptions;
  const apiUrl = state.settings.apiUrl;
  if (rest.length === 0 && req.method === 'GET') {
    return {
      status: 200,
      body: { data: [...table.values()].map((s) => present('webhook_subscriptions', s, apiUrl, false)) },
    };
  }
  if (rest.length === 0 && req.method === 'POST') {
    const body = readJson(req);
    const errors: Record<string, string[]> = {};
    for (const f of ['callback_url', 'callback_token', 'event_type'])
      if (typeof body[f] !== 'string' || !body[f]) errors[f] = ["can't be blank"];
    if (Object.keys(errors).length > 0) throw new SalesloftError(422, { errors });
    const s = state.store.insert('webhook_subscriptions', {
      callback_url: body.callback_url as string,
      callback_token: body.callback_token as string,
      event_type: body.event_type as string,
      enabled: true,
      user_guid: user.guid,
    });
    return { status: 200, body: { data: present('webhook_subscriptions', s, apiUrl, false) } };
  }
  const s = table.get(Number(rest[0]));
  if (!s || rest.length > 1) throw notFound();
  if (req.method === 'GET')
    return { status: 200, body: { data: present('webhook_subscriptions', s, apiUrl, false) } };
  if (req.method === 'PUT') {
    const body = readJson(req);
    if (typeof body.enabled === 'boolean') s.enabled = body.enabled;
    return { status: 200, body: { data: present('webhook_subscriptions', s, apiUrl, false) } };
  }
  if (req.method === 'DELETE') {
    table.delete(s.id);
    return { status: 204 };
  }
  throw notFound();
}
