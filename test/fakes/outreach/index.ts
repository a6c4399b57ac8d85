// An offline Outreach (REST API v2 + OAuth) for tests, built from the published API with its quirks:
// the platform reference (sales-engagement-and-placement.md) §1 and §6.1; sources in test/fakes/README.md.
import { randomUUID } from 'node:crypto';
import {
  Clock,
  WebhookSender,
  controlOverHttp,
  startFakeServer,
  type FakeRequest,
  type FakeResponse,
  type FakeServerOptions,
  type RequestRecord,
} from '../http';
import { OAuthServer } from '../oauth';
import { ApiError, JsonApi, badRequest, notFound } from './jsonapi';
import { OutreachStore, TYPE_BY_PLURAL, type Row } from './store';
import {
  deliver,
  insertMailing,
  removeWithDependents,
  sequenceStateAction,
  type OutreachState,
} from './records';
import { outreachControl, type OutreachControl } from './control';

export type { OutreachControl } from './control';

export interface OutreachFakeOptions extends FakeServerOptions {
  /** Access-token life; 7200 s as documented (§1.3 [T]). */
  accessTokenSeconds?: number;
  /** Least time between two new access tokens per user (one per 60 s, §1.3 [T]); 0 turns it off. */
  tokenIntervalMs?: number;
  /** Requests per user per window: 10,000 an hour (§1.4 [S]/[T]). */
  rateLimit?: number;
  rateLimitWindowMs?: number;
  /** Pause between the 3 retries of a webhook on a network error: 1 s (§1.7 [T]). */
  webhookRetryMs?: number;
}

export interface OutreachFake {
  /** What OUTREACH_API_URL gets: `<base>/api/v2`. */
  apiUrl: string;
  /** What OUTREACH_OAUTH_URL gets: `<base>/oauth`. */
  oauthUrl: string;
  /** `<base>/_control`: the control methods over HTTP (`POST /_control/<method>`, JSON array of args). */
  controlUrl: string;
  clientId: string;
  clientSecret: string;
  control: OutreachControl;
  stop(): Promise<void>;
}

/** Scopes an authorize request without `scope` gets (Outreach always asks for them; §1.3). */
const ALL_SCOPES = [
  'users.read',
  'mailboxes.read',
  'sequences.all',
  'sequenceSteps.read',
  'sequenceStates.all',
  'mailings.read',
  'prospects.all',
  'recipients.read',
  'webhooks.all',
];

export async function startOutreachFake(options: OutreachFakeOptions = {}): Promise<OutreachFake> {
  const clock = new Clock();
  const store = new OutreachStore(clock);
  const settings: OutreachState['settings'] = {
    apiUrl: '',
    defaultPageSize: 50, // "a collection returns up to 50 objects by default" (§1.1 [P])
    maxPageSize: 1000,
    truncateCounts: false,
    repeatNextLink: false,
    rateLimit: options.rateLimit ?? 10_000,
    rateLimitWindowMs: options.rateLimitWindowMs ?? 3_600_000,
    webhookRetryMs: options.webhookRetryMs ?? 1000,
    blockedUntil: 0,
    maintenanceUntil: 0,
    governanceDenied: new Set(),
  };
  const oauth = new OAuthServer(clock, {
    accessTtlSeconds: options.accessTokenSeconds ?? 7200,
    refreshTtlSeconds: 14 * 24 * 3600, // 14 days (§1.3 [T])
    maxActiveRefreshTokens: 100, // at most 100 active refresh tokens per user/app (§1.3 [T])
    rotationRevokesOlder: false, // a refresh returns a new refresh token; older ones stay valid
    issueIntervalMs: options.tokenIntervalMs ?? 60_000,
    redirectExtras: () => ({}),
    defaultScopes: ALL_SCOPES,
    tooSoon: (retryAt) => rateLimited(clock, retryAt, 'one new access token per user every 60 seconds'),
  });
  const state: OutreachState = {
    clock,
    store,
    oauth,
    api: new JsonApi(store, () => settings),
    webhooks: new WebhookSender(() => ({
      retries: 3, // up to 3 retries, 1 s apart, only on network failure (§1.7 [T])
      intervalMs: settings.webhookRetryMs,
      retryOnHttpError: false, // non-2xx (even 500/429) counts as acknowledged
    })),
    requests: [],
    buckets: new Map(),
    settings,
  };
  store.onEvent = (event) => deliver(state, event);
  const control = outreachControl(state);
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
    const res = await route(state, req, record);
    record.status = res.status;
    state.requests.push(record);
    return res;
  });
  settings.apiUrl = `${server.baseUrl}/api/v2`;
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

const JSONAPI = 'application/vnd.api+json';

function jsonApi(status: number, body?: unknown, headers: Record<string, string> = {}): FakeResponse {
  return { status, body, headers, contentType: JSONAPI };
}

function rateLimited(clock: Clock, retryAt: number, what: string): FakeResponse {
  // The vendor's words, with its ISO time without zone (§1.4 [S]: "…please try again at 2017-01-01T00:00:00.")
  const at = new Date(retryAt).toISOString().slice(0, 19);
  const error = new ApiError(
    429,
    'rateLimitExceeded',
    'Rate Limit Exceeded',
    `You have exceeded your permitted rate limit of ${what}; please try again at ${at}.`,
  );
  const seconds = Math.max(1, Math.ceil((retryAt - clock.now()) / 1000));
  return jsonApi(429, error.body(), { 'retry-after': String(seconds) });
}

async function route(state: OutreachState, req: FakeRequest, record: RequestRecord): Promise<FakeResponse> {
  const path = req.url.pathname;
  if (path === '/oauth/authorize' && req.method === 'GET') {
    return state.oauth.authorize(req, (id) => state.store.get('user', id) !== undefined);
  }
  if (path === '/oauth/token' && req.method === 'POST') return state.oauth.token(req);
  if (!path.startsWith('/api/v2/')) return jsonApi(404, notFound('route', path).body());

  // JSON:API strictly: every request carries the media type, with a body or without (§1.1 [P]).
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== JSONAPI) {
    const error = new ApiError(
      415,
      'unsupportedMediaType',
      'Unsupported Media Type',
      `Content-Type must be ${JSONAPI}.`,
    );
    return jsonApi(415, error.body());
  }
  if (state.settings.maintenanceUntil > state.clock.now()) {
    // Scheduled maintenance: 503 whose Retry-After is an ISO-8601 time, not seconds (§1.4 [T]).
    const error = new ApiError(
      503,
      'scheduledServerMaintenance',
      'Scheduled Server Maintenance',
      'The API is down for scheduled maintenance.',
    );
    return jsonApi(503, error.body(), {
      'retry-after': new Date(state.settings.maintenanceUntil).toISOString(),
    });
  }
  const auth = state.oauth.authenticate(req.headers.authorization);
  if (!auth.ok) {
    // The body of a 401 is [UNVERIFIED] (§1.3); the fake picks `unauthorized` (§6.1.5).
    const detail = {
      missing: 'No access token given.',
      invalid: 'The access token is invalid.',
      expired: 'The access token expired.',
      revoked: 'The access token was revoked.',
    }[auth.reason];
    return jsonApi(401, new ApiError(401, 'unauthorized', 'Unauthorized', detail).body());
  }
  record.userId = auth.userId;
  const limitHeaders = takeRateLimit(state, auth.userId);
  if (!limitHeaders) {
    const bucket = state.buckets.get(auth.userId)!;
    const spent = bucket.used >= state.settings.rateLimit;
    const blocked = state.settings.blockedUntil > state.clock.now() ? state.settings.blockedUntil : 0;
    const retryAt = Math.max(spent ? bucket.resetAt : 0, blocked);
    const res = rateLimited(state.clock, retryAt, state.settings.rateLimit.toLocaleString('en-US'));
    res.headers = { ...res.headers, ...headersOf(state, auth.userId) };
    return res;
  }
  try {
    const res = await api(state, req, path.slice('/api/v2/'.length).split('/'), auth.scopes);
    res.headers = { ...res.headers, ...limitHeaders };
    return res;
  } catch (error) {
    if (error instanceof ApiError) return jsonApi(error.status, error.body(), limitHeaders);
    throw error;
  }
}

function headersOf(state: OutreachState, userId: number): Record<string, string> {
  const bucket = state.buckets.get(userId)!;
  const blocked = state.settings.blockedUntil > state.clock.now();
  return {
    'x-ratelimit-limit': String(state.settings.rateLimit),
    'x-ratelimit-remaining': String(blocked ? 0 : Math.max(0, state.settings.rateLimit - bucket.used)),
    // Whether Reset is an epoch or a date is [UNVERIFIED] (§1.4); the fake sends epoch seconds.
    'x-ratelimit-reset': String(Math.ceil((blocked ? state.settings.blockedUntil : bucket.resetAt) / 1000)),
  };
}

/** Per-user fixed window (10,000 an hour, §1.4): the headers to send, or null when spent. */
function takeRateLimit(state: OutreachState, userId: number): Record<string, string> | null {
  const now = state.clock.now();
  let bucket = state.buckets.get(userId);
  if (!bucket || bucket.resetAt <= now) {
    bucket = { resetAt: now + state.settings.rateLimitWindowMs, used: 0 };
    state.buckets.set(userId, bucket);
  }
  if (state.settings.blockedUntil > now || bucket.used >= state.settings.rateLimit) return null;
  bucket.used += 1;
  return headersOf(state, userId);
}

/** Scopes are `<plural>.<read|write|delete|all>` and not additive: write does not grant read (§1.3 [T]). */
function requireScope(scopes: string[], plural: string, need: 'read' | 'write' | 'delete'): void {
  if (scopes.includes(`${plural}.${need}`) || scopes.includes(`${plural}.all`)) return;
  throw new ApiError(
    403,
    'unauthorizedOauthScope',
    'Unauthorized OAuth Scope',
    `The access token lacks the ${plural}.${need} scope.`,
  );
}

function parseBody(req: FakeRequest): {
  data?: {
    type?: string;
    id?: unknown;
    attributes?: Record<string, unknown>;
    relationships?: Record<string, { data?: { id?: unknown } }>;
  };
} {
  if (req.body.length === 0) return {};
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
}

async function api(
  state: OutreachState,
  req: FakeRequest,
  parts: string[],
  scopes: string[],
): Promise<FakeResponse> {
  const { store } = state;
  const [plural = '', idText, actions, action] = parts;
  const def = TYPE_BY_PLURAL.get(plural);
  if (!def || parts.length > 4 || (parts.length > 2 && actions !== 'actions'))
    throw notFound('route', req.url.pathname);
  const params = req.url.searchParams;
  const method = req.method;
  const allow = (m: Parameters<typeof def.methods.includes>[0]) => def.methods.includes(m);
  const notAllowed = () => {
    const allowed = idText === undefined ? ['GET', 'POST'] : ['GET', 'DELETE'];
    const verbs = allowed.filter((v) =>
      allow(v === 'GET' ? (idText ? 'get' : 'list') : v === 'POST' ? 'create' : 'delete'),
    );
    return jsonApi(
      405,
      new ApiError(
        405,
        'methodNotAllowed',
        'Method Not Allowed',
        `${method} is not supported on ${plural}.`,
      ).body(),
      { allow: verbs.join(', ') },
    );
  };
  if (idText === undefined) {
    if (method === 'GET' && allow('list')) {
      requireScope(scopes, plural, 'read');
      return jsonApi(200, state.api.list(def, params));
    }
    if (method === 'POST' && allow('create')) {
      requireScope(scopes, plural, 'write');
      governance(state, plural);
      return create(state, def.plural, parseBody(req), params);
    }
    return notAllowed();
  }
  const id = Number(idText);
  const row = Number.isInteger(id) ? store.get(def.type, id) : undefined;
  if (actions === 'actions') {
    const known = { sequenceStates: ['pause', 'resume', 'finish'], sequences: ['activate', 'deactivate'] }[
      plural
    ];
    if (method !== 'POST' || !known?.includes(action ?? '')) throw notFound('action', action ?? '');
    requireScope(scopes, plural, 'write');
    if (!row) throw notFound(def.type, idText);
    governance(state, plural);
    if (plural === 'sequences') {
      // `enabled` is read-only: it changes only through activate / deactivate (§1.5 [P], §6.1.10).
      const on = action === 'activate';
      store.update('sequence', row, {
        enabled: on,
        enabledAt: on ? state.clock.iso() : row.attributes.enabledAt,
      });
    } else sequenceStateAction(state, row, action as 'pause' | 'resume' | 'finish');
    return jsonApi(200, state.api.document(def, row, params, true));
  }
  if (method === 'GET' && allow('get')) {
    requireScope(scopes, plural, 'read');
    if (!row) throw notFound(def.type, idText);
    return jsonApi(200, state.api.document(def, row, params));
  }
  if (method === 'DELETE' && allow('delete')) {
    requireScope(scopes, plural, 'delete');
    if (!row) throw notFound(def.type, idText);
    governance(state, plural);
    removeWithDependents(state, def.type, row.id);
    return { status: 204 };
  }
  // PATCH or DELETE of a mailing, and any other verb a resource lacks: 405 (§6.1.7).
  return notAllowed();
}

function governance(state: OutreachState, plural: string): void {
  if (state.settings.governanceDenied.has(plural)) {
    throw new ApiError(
      403,
      'unauthorizedRequest',
      'Unauthorized Request',
      `Your role does not allow changing ${plural}.`,
    );
  }
}

function create(
  state: OutreachState,
  plural: string,
  body: ReturnType<typeof parseBody>,
  params: URLSearchParams,
): FakeResponse {
  const def = TYPE_BY_PLURAL.get(plural)!;
  const data = body.data;
  if (!data || data.type !== def.type) {
    throw new ApiError(
      422,
      'validationError',
      'Validation Error',
      `data.type must be ${def.type}.`,
      '/data/type',
    );
  }
  const attrs = data.attributes ?? {};
  let row: Row;
  if (plural === 'webhooks') {
    if (typeof attrs.url !== 'string' || !/^https?:\/\//.test(attrs.url)) {
      // The vendor wants HTTPS; the fake accepts http:// too, since tests listen on loopback.
      throw new ApiError(
        422,
        'validationError',
        'Validation Error',
        'url must be a URL.',
        '/data/attributes/url',
      );
    }
    row = state.store.insert('webhook', {
      url: attrs.url,
      resource: attrs.resource ?? '*',
      action: attrs.action ?? '*',
      secret: attrs.secret ?? null,
      active: attrs.active ?? true,
      payloadVersion: attrs.payloadVersion ?? 1,
      disabledReason: null,
      disabledSince: null,
      disabledUntil: null,
    });
    const doc = state.api.document(def, row, params, true);
    // The create response carries a cleanupToken (§1.7 [P]); later reads do not.
    (doc.data as { attributes: Record<string, unknown> }).attributes.cleanupToken = randomUUID();
    return jsonApi(201, doc);
  }
  // POST /mailings: a single (non-sequence) mailing from a mailbox to a prospect.
  const mailboxId = Number(data.relationships?.mailbox?.data?.id);
  const prospectId = Number(data.relationships?.prospect?.data?.id);
  const mailbox = state.store.get('mailbox', mailboxId);
  const prospect = state.store.get('prospect', prospectId);
  if (!mailbox || !prospect) {
    throw new ApiError(
      422,
      'validationError',
      'Validation Error',
      'mailbox and prospect must exist.',
      '/data/relationships',
    );
  }
  const to = (prospect.attributes.emails as string[])[0] ?? '';
  row = insertMailing(state, mailbox, prospect, to, {
    scheduledAt: typeof attrs.scheduledAt === 'string' ? attrs.scheduledAt : null,
    subject: typeof attrs.subject === 'string' ? attrs.subject : '',
    bodyHtml: typeof attrs.bodyHtml === 'string' ? attrs.bodyHtml : '',
  });
  return jsonApi(201, state.api.document(def, row, params, true));
}
