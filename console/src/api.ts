// The console's one door to the API: every request the pages make goes through the typed client from
// client/ (openapi-fetch over docs/openapi.json) here, and errors come out as one ApiError the pages
// word for people. Besides the API, only the presigned upload and download addresses are contacted.
import { apiError, createMailvetClient, MailvetApiError, type DownloadFilter } from '../../client';
import { safetyNetCalls } from './safety-net-api';

export type { CreatedJob, DownloadFilter, JobState, Usage, VerdictStatus as Status } from '../../client';
import type { JobState, JobStatus, Usage, VerdictStatus as Status } from '../../client';
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
  mailbox: {
    isRoleAccount: boolean;
    /** The mail server's reply that decided the mailbox probe, when one did. */
    smtpReply?: { code: number; enhanced: string | null; text: string } | null;
    [field: string]: unknown;
  };
  requestId: string;
  result: { reason: string; status: Status; subStatus: string | null };
  validatedAt: string;
}

/** A created job and a job's status are the client's own types (generated from docs/openapi.json). */
export type Job = JobStatus;

/** A job in the company's list: its status plus the file name given at creation. */
export interface JobSummary extends Job {
  fileName: string | null;
  encoding?: string;
}

export interface Download {
  jobId: string;
  downloadUrl: string;
  expiresIn: number;
  fileName: string;
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

/** One protocol's server of a mailbox to connect. */
export interface MailServerSettings {
  host: string;
  port: number;
  security: 'tls' | 'starttls';
  username: string;
  password: string;
}

export interface ConnectMailboxBody {
  email: string;
  imap: MailServerSettings;
  smtp: MailServerSettings;
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
  /** An API key, or a person's access token (sent as `Authorization: Bearer`). */
  apiKey?: string;
  accessToken?: string;
}

/** An admin's own API key as the API lists it (the key itself only once, when created). */
export interface ApiKey {
  createdAt: string;
  hint: string;
  id: string;
  name: string;
  revokedAt?: string;
}

/** The client's errors (and a failed fetch) as the console's one error type. */
async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof MailvetApiError)
      throw new ApiError(error.status, error.apiMessage, error.retryAfterSeconds);
    if (error instanceof ApiError) throw error;
    throw new ApiError(0, 'The API cannot be reached. Check your connection and try again.');
  }
}

/** The body of an openapi-fetch answer; a failed one throws with the API's own text. */
function bodyOf<T>(answer: { data?: unknown; error?: unknown; response: Response }): T {
  if (!answer.response.ok) throw apiError(answer.response, answer.error);
  return answer.data as T;
}

type Paging = { limit?: number; offset?: number };
const paging = (q: Paging) => ({
  ...(q.limit === undefined ? {} : { limit: String(q.limit) }),
  ...(q.offset === undefined ? {} : { offset: String(q.offset) }),
});
type Window = { startDate?: string; endDate?: string };

export function createApi(options: ApiOptions) {
  const baseUrl = options.baseUrl || window.location.origin;
  // Reads and most writes wait out a 429 or 503 (Retry-After) a few times before the page hears of it.
  const auth =
    options.apiKey !== undefined ? { apiKey: options.apiKey } : { accessToken: options.accessToken };
  const client = createMailvetClient({ baseUrl, ...auth, maxRetries: 3, maxWaitMs: 10_000 });
  // Job creation is not retried: its 429 is the 5-job limit, whose 60 s wait the page explains instead.
  const once = createMailvetClient({ baseUrl, ...auth, maxRetries: 0 });
  const api = client.api;

  return {
    /** Resolves when the key is accepted; a bad key rejects with the API's 401/403. */
    checkKey: () =>
      translated(async () => {
        bodyOf(await api.GET('/v1/connected-domains', { params: { query: { limit: '1' } } }));
      }),

    /** One address; a validation that outlives the sync budget is polled until it has a result. */
    validateEmail: (email: string) =>
      translated(async () => (await client.validate(email)) as unknown as ValidationResult),

    createJob: (body: { emailColumn: number; fileName?: string; callbackUrl?: string; estimate?: boolean }) =>
      translated(() => once.createJob(body)),
    /** A completed estimate's full run: a new job over the same upload (not retried, like creation). */
    runEstimate: (jobId: string) => translated(() => once.runEstimate(jobId)),
    getJob: (jobId: string) => translated(() => client.getJob(jobId)),
    getDownload: (jobId: string, filter: DownloadFilter = {}) =>
      translated(async () => (await client.getDownload(jobId, filter)) as Download),
    /** The company's jobs, newest first. */
    listJobs: (query: Paging & { status?: JobState }) =>
      translated(async () => {
        const page = await client.listJobs({
          ...paging(query),
          ...(query.status ? { status: query.status } : {}),
        });
        return page as Page & { jobs: JobSummary[] };
      }),
    /** Deletes a job and its files (a running job is cancelled first). */
    deleteJob: (jobId: string) => translated(() => client.deleteJob(jobId)),
    /** This month's (or `month`'s, YYYY-MM) validations against quota and credits. */
    getUsage: (month?: string) => translated<Usage>(() => client.getUsage(month)),

    /**
     * PUTs the file to the presigned upload address (Content-Type: text/csv, no API key) with byte
     * progress; an expired address (403) is said in words.
     */
    uploadFile: (url: string, file: Blob, onProgress: (fraction: number) => void) =>
      translated(async () => {
        try {
          await client.uploadFile(url, file, (sent, total) => onProgress(total ? sent / total : 1));
        } catch (error) {
          if (error instanceof MailvetApiError && error.status === 403)
            throw new ApiError(
              403,
              'The upload address has expired (it lasts 5 minutes). Start the upload again.',
            );
          if (error instanceof MailvetApiError)
            throw new ApiError(
              error.status,
              `The upload was refused (HTTP ${error.status}): ${error.apiMessage}`,
            );
          throw new ApiError(0, 'The upload did not reach the storage service. Try again.');
        }
      }),

    listMailboxes: (query: Paging & { reputationRange?: ReputationRangeName }) =>
      translated(async () =>
        bodyOf<MailboxPage>(
          await api.GET('/v1/connected-mailboxes', {
            params: { query: { ...paging(query), reputationRange: query.reputationRange } },
          }),
        ),
      ),
    getMailbox: (id: string, query: Window = {}) =>
      translated(async () =>
        bodyOf<MailboxDetail>(
          await api.GET('/v1/connected-mailboxes/{id}', { params: { path: { id }, query } }),
        ),
      ),
    connectMailbox: (body: ConnectMailboxBody) =>
      translated(async () => bodyOf<Mailbox>(await once.api.POST('/v1/connected-mailboxes', { body }))),
    disconnectMailbox: (id: string) =>
      translated(async () => {
        const answer = await api.DELETE('/v1/connected-mailboxes/{id}', { params: { path: { id } } });
        if (!answer.response.ok) throw apiError(answer.response, answer.error);
      }),
    listDomains: (query: Paging = {}) =>
      translated(async () =>
        bodyOf<Page & { domains: Domain[] }>(
          await api.GET('/v1/connected-domains', { params: { query: paging(query) } }),
        ),
      ),
    listUsers: (query: Paging = {}) =>
      translated(async () =>
        bodyOf<Page & { users: User[] }>(await api.GET('/v1/users', { params: { query: paging(query) } })),
      ),
    inviteUser: (body: { email: string; name?: string; role: 'member' | 'admin' }) =>
      translated(async () => bodyOf<User>(await api.POST('/v1/users', { body }))),
    listApiKeys: () => translated(async () => bodyOf<{ apiKeys: ApiKey[] }>(await api.GET('/v1/api-keys'))),
    createApiKey: (name: string) =>
      translated(async () =>
        bodyOf<ApiKey & { key: string }>(await api.POST('/v1/api-keys', { body: { name } })),
      ),
    revokeApiKey: (id: string) =>
      translated(async () =>
        bodyOf<ApiKey>(await api.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })),
      ),
    listSafetyNetMailboxes: (query: Paging = {}) =>
      translated(async () =>
        bodyOf<Page & { mailboxes: SafetyNetMailbox[] }>(
          await api.GET('/v1/safety-net-mailboxes', { params: { query: paging(query) } }),
        ),
      ),
    setSafetyNetMailbox: (id: string, activated: boolean) =>
      translated(async () =>
        bodyOf<SafetyNetMailbox>(
          await api.PATCH('/v1/safety-net-mailboxes/{id}', { params: { path: { id } }, body: { activated } }),
        ),
      ),
    listSequences: (query: Paging = {}) =>
      translated(async () =>
        bodyOf<Page & { sequences: Sequence[] }>(
          await api.GET('/v1/safety-net-sequences', { params: { query: paging(query) } }),
        ),
      ),
    setSequence: (id: string, activated: boolean) =>
      translated(async () =>
        bodyOf<Sequence>(
          await api.PATCH('/v1/safety-net-sequences/{id}', { params: { path: { id } }, body: { activated } }),
        ),
      ),
    ...safetyNetCalls(api, translated, bodyOf),
  };
}

export type Api = ReturnType<typeof createApi>;
