// The console's one door to the API: every request the pages make goes through these functions, so the
// transport (today fetch; the typed client from client/ once it lands) changes in this file only.
// Besides the API, only the presigned upload and download addresses are ever contacted.

export type Status = 'safe' | 'block_bounce_risk' | 'some_risk' | 'dead_email' | 'do_not_mail_abuse';
export type JobState = 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'expired';
export type ReputationRangeName =
  'today' | 'yesterday' | 'last7Days' | 'thisWeek' | 'last30Days' | 'lastWeek' | 'lastMonth' | 'thisMonth';

export interface ValidationResult {
  didYouMean?: string;
  domain: {
    name: string;
    mxRecords: unknown[];
    mxProvider: string | null;
    isCatchAll: boolean | null;
    isDisposable: boolean;
    isFreeProvider: boolean;
    [field: string]: unknown;
  };
  email: string;
  mailbox: { isRoleAccount: boolean; [field: string]: unknown };
  requestId: string;
  result: { reason: string; status: Status; subStatus: string | null };
  validatedAt: string;
}

export interface CreatedJob {
  jobId: string;
  status: JobState;
  uploadUrl: string;
  uploadExpiresIn: number;
}

export interface Job {
  jobId: string;
  status: JobState;
  totalEmails: number;
  processedEmails: number;
  percentComplete: number;
  createdAt: string;
  completedAt: string | null;
  statistics: Record<Status, number> | null;
  error?: string;
}

export interface Download {
  jobId: string;
  downloadUrl: string;
  expiresIn: number;
  format: string;
}

export interface Person {
  email: string;
  firstName: string;
  lastName: string;
}

export interface Mailbox {
  connectedAt: string;
  connectionStatus: string;
  domain: string;
  email: string;
  id: string;
  owner: Person;
  provider: string;
  reputation: number | null;
  statusUpdatedAt: string;
}

export interface ReputationPoint {
  date: string;
  reputation: number | null;
}

export interface MailboxDetail extends Mailbox {
  currentReputation: number | null;
  history: ReputationPoint[];
  startDate: string;
  endDate: string;
}

export interface Page {
  limit: number;
  offset: number;
  total: number;
}

export interface MailboxPage extends Page {
  mailboxes: Mailbox[];
  reputationRange: { name: ReputationRangeName; startDate: string; endDate: string };
}

export interface Domain {
  currentReputation: number | null;
  domain: string;
  mailboxCount: number;
}

export interface User {
  createdAt?: string;
  email: string;
  id: string | null;
  inviteExpiresAt?: string;
  mailboxes: { email: string; id: string }[];
  name: string;
  role: 'member' | 'admin';
  status: 'active' | 'invited';
}

export interface SafetyNetMailbox {
  activated: boolean;
  email: string;
  id: string;
  integrations: { externalId: string; service: string }[];
}

export interface Sequence {
  activated: boolean;
  crmSequenceId: string;
  id: string;
  name: string;
  owner: Person;
  service: string;
}

/** A refusal of the API (or of a presigned address), with what a person needs to act on it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds to wait, from Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiOptions {
  /** The API's base URL; empty: the console's own origin (the local runtime serves both). */
  baseUrl: string;
  apiKey: string;
  /** How often a 429 or 503 is retried after its Retry-After before it reaches the page. */
  retries?: number;
}

type Query = Record<string, string | number | boolean | undefined>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterSeconds(response: Response): number | undefined {
  const value = Number(response.headers.get('retry-after'));
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

async function errorText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status says it
  }
  return `The API answered ${response.status} ${response.statusText}`.trim();
}

export function createApi(options: ApiOptions) {
  const base = options.baseUrl.replace(/\/$/, '');
  const retries = options.retries ?? 3;

  async function call<T>(
    method: string,
    path: string,
    init: { query?: Query; body?: unknown; accept?: number[] } = {},
  ): Promise<{ status: number; body: T }> {
    const url = new URL(base + path, window.location.href);
    for (const [name, value] of Object.entries(init.query ?? {}))
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            'x-api-key': options.apiKey,
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
      } catch {
        throw new ApiError(0, 'The API cannot be reached. Check your connection and try again.');
      }
      const accepted = init.accept ?? [200];
      if (accepted.includes(response.status)) {
        const text = await response.text();
        return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
      }
      const wait = retryAfterSeconds(response);
      // Reads only: retrying a write could repeat it.
      if ((response.status === 429 || response.status === 503) && method === 'GET' && attempt < retries) {
        await sleep(((wait ?? 1) + Math.random()) * 1000);
        continue;
      }
      throw new ApiError(response.status, await errorText(response), wait);
    }
  }
  const get = async <T>(path: string, query?: Query) => (await call<T>('GET', path, { query })).body;
  const id = encodeURIComponent;

  return {
    /** Resolves when the key is accepted; a bad key rejects with the API's 401/403. */
    async checkKey(): Promise<void> {
      await get('/v1/connected-domains', { limit: 1 });
    },

    /** One address; a validation that outlives the sync budget is polled until it has a result. */
    async validateEmail(email: string): Promise<ValidationResult> {
      const first = await call<ValidationResult | { requestId: string; retryAfter: number }>(
        'POST',
        '/v1/email/validate',
        { body: { email }, accept: [200, 202] },
      );
      if (first.status === 200) return first.body as ValidationResult;
      let { requestId, retryAfter } = first.body as { requestId: string; retryAfter: number };
      for (;;) {
        await sleep(Math.max(1, retryAfter) * 1000);
        const next = await call<ValidationResult | { retryAfter: number }>(
          'GET',
          `/v1/email/validate/${id(requestId)}`,
          { accept: [200, 202] },
        );
        if (next.status === 200) return next.body as ValidationResult;
        ({ retryAfter } = next.body as { retryAfter: number });
        requestId = (next.body as { requestId?: string }).requestId ?? requestId;
      }
    },

    async createJob(body: { emailColumn: number; fileName?: string; callbackUrl?: string }) {
      return (await call<CreatedJob>('POST', '/v1/email/validate-file', { body, accept: [202] })).body;
    },
    getJob: (jobId: string) => get<Job>(`/v1/email/validate-file/${id(jobId)}`),
    getDownload: (jobId: string) => get<Download>(`/v1/email/validate-file/${id(jobId)}/download`),

    listMailboxes: (query: { reputationRange?: ReputationRangeName; limit?: number; offset?: number }) =>
      get<MailboxPage>('/v1/connected-mailboxes', query),
    getMailbox: (mailboxId: string, query: { startDate?: string; endDate?: string } = {}) =>
      get<MailboxDetail>(`/v1/connected-mailboxes/${id(mailboxId)}`, query),
    listDomains: (query: { limit?: number; offset?: number } = {}) =>
      get<Page & { domains: Domain[] }>('/v1/connected-domains', query),
    getDomain: (domain: string, query: { startDate?: string; endDate?: string } = {}) =>
      get<{ history: ReputationPoint[]; [field: string]: unknown }>(
        `/v1/connected-domains/${id(domain)}`,
        query,
      ),
    listUsers: (query: { limit?: number; offset?: number } = {}) =>
      get<Page & { users: User[] }>('/v1/users', query),
    async inviteUser(body: { email: string; name?: string; role: 'member' | 'admin' }) {
      return (await call<User>('POST', '/v1/users', { body, accept: [200, 201] })).body;
    },
    listSafetyNetMailboxes: (query: { limit?: number; offset?: number } = {}) =>
      get<Page & { mailboxes: SafetyNetMailbox[] }>('/v1/safety-net-mailboxes', query),
    async setSafetyNetMailbox(mailboxId: string, activated: boolean) {
      return (
        await call<SafetyNetMailbox>('PATCH', `/v1/safety-net-mailboxes/${id(mailboxId)}`, {
          body: { activated },
        })
      ).body;
    },
    listSequences: (query: { limit?: number; offset?: number } = {}) =>
      get<Page & { sequences: Sequence[] }>('/v1/safety-net-sequences', query),
    async setSequence(sequenceId: string, activated: boolean) {
      return (
        await call<Sequence>('PATCH', `/v1/safety-net-sequences/${id(sequenceId)}`, { body: { activated } })
      ).body;
    },
  };
}

export type Api = ReturnType<typeof createApi>;

/**
 * PUTs the file to the presigned upload address with the one header its signature covers, reporting
 * progress (fetch cannot report upload progress; XMLHttpRequest can). No API key goes there.
 */
export function uploadFile(url: string, file: Blob, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', 'text/csv');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
      } else if (xhr.status === 403)
        reject(
          new ApiError(403, 'The upload address has expired (it lasts 5 minutes). Start the upload again.'),
        );
      else reject(new ApiError(xhr.status, `The upload was refused (HTTP ${xhr.status}).`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload did not reach the storage service. Try again.'));
    xhr.send(file);
  });
}
