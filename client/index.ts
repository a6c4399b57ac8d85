// The typed mailvet client: every route through openapi-fetch over the generated `paths`, waits out
// 429 and 503, and the bulk flow (create, upload with byte progress, follow, download) in one call.
// Browser-safe: no Node module is imported here (client/node.ts adds files and streams for Node).
import createClient, { type Client } from 'openapi-fetch';
import { apiError, retryingFetch, sleep, storageError, type RetryOptions } from './http';
import type { paths } from './schema';
import type {
  AsyncPendingValidation,
  BatchItem,
  BatchResults,
  CreatedJob,
  CreateJobRequest,
  DownloadDescriptor,
  JobList,
  JobListQuery,
  JobStatus,
  PendingValidation,
  PolledPendingValidation,
  PolledValidationResult,
  Usage,
  ValidationResult,
  VerdictStatus,
} from './types';
import { createUploader, type UploadAnswer, type UploadBody, type Uploader } from './upload';

export * from './http';
export type * from './types';
export type { UploadBody, Uploader, UploadAnswer } from './upload';
export type { paths } from './schema';

export interface MailvetClientOptions extends RetryOptions {
  /** The API's address, e.g. http://localhost:3000 (no trailing /v1). */
  baseUrl: string;
  /** Sent as x-api-key on every API call (never on presigned upload and download URLs). */
  apiKey?: string;
  /** A person's access token from the user pool, sent as `Authorization: Bearer` instead of a key. */
  accessToken?: string;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
  /** How files reach their presigned upload URL; default XMLHttpRequest where it exists, else fetch. */
  uploader?: Uploader;
}

/** One address's verdict, or where to poll for it. */
export type ValidationOutcome =
  | { done: true; result: ValidationResult | PolledValidationResult }
  | { done: false; pending: PendingValidation | AsyncPendingValidation | PolledPendingValidation };

export interface ValidateOptions {
  metadata?: Record<string, unknown>;
  /** Use POST /v1/email/validate-async instead of the synchronous route. */
  async?: boolean;
  /** How long to keep polling a pending validation; default 5 minutes. */
  timeoutMs?: number;
  /**
   * How long the synchronous call waits for the verdict before it answers 202 (sent as the body's
   * `timeoutMs`, within the server's sync budget); ignored with `async`.
   */
  waitMs?: number;
}

export interface BatchOptions {
  /** Echoed in every address's result. */
  metadata?: Record<string, unknown>;
  /** How long the call waits for the verdicts before answering with poll URLs (the body's `timeoutMs`). */
  waitMs?: number;
  /** How long to keep polling the addresses still running; default 5 minutes. */
  timeoutMs?: number;
}

/** A batch item still running: it has a pollUrl and no result yet. */
export function isPendingItem(item: BatchItem): item is Extract<BatchItem, { pollUrl: string }> {
  return 'pollUrl' in item;
}

export interface WaitOptions {
  /**
   * Between two status reads. Default: 100 ms after the first, doubling to 1000 ms, so a job that ends
   * within a second (an estimate, a small file) is seen soon after it does.
   */
  pollIntervalMs?: number;
  /** Give up (throw) after this long; default never (a job cannot stay processing for ever). */
  timeoutMs?: number;
  /** Every status read, in order. */
  onStatus?: (job: JobStatus) => void;
}

/** Which rows and columns a download holds; empty: the full file with the status column. */
export interface DownloadFilter {
  status?: readonly VerdictStatus[];
  columns?: readonly ('status' | 'reason')[];
  /** Leave out rows whose address appeared earlier in the file (first occurrences only). */
  unique?: boolean;
}

export interface ValidateFileOptions extends CreateJobRequest, Omit<WaitOptions, 'onStatus'> {}

export type FileProgress =
  | { phase: 'upload'; sentBytes: number; totalBytes: number }
  | { phase: 'processing'; job: JobStatus }
  | { phase: 'download'; receivedBytes: number; totalBytes: number | null };

export type ProgressListener = (progress: FileProgress) => void;

/** How a file job ended: `job.status` is completed, failed or expired. */
export interface FileJobEnd {
  jobId: string;
  job: JobStatus;
  /** Present when the job completed. */
  download?: DownloadDescriptor;
}

export interface FileValidation extends FileJobEnd {
  /** The results file, when the job completed. */
  results?: Uint8Array;
}

const activeStates = new Set<string>(['awaiting_upload', 'processing']);
/** waitForJob's default waits: the first, doubled at each read up to the last. */
const firstPollMs = 100;
const lastPollMs = 1000;

export class MailvetClient {
  /** Every route, typed by docs/openapi.json (x-api-key and retries included). */
  readonly api: Client<paths>;
  private readonly baseUrl: string;
  private readonly authHeaders: Record<string, string>;
  private readonly fetchWithRetry: (request: Request) => Promise<Response>;
  private readonly plainFetch: typeof fetch;
  private readonly uploader: Uploader;

  constructor(readonly options: MailvetClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.authHeaders =
      options.apiKey !== undefined
        ? { 'x-api-key': options.apiKey }
        : options.accessToken !== undefined
          ? { authorization: `Bearer ${options.accessToken}` }
          : {};
    this.plainFetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.fetchWithRetry = retryingFetch(this.plainFetch, options);
    this.uploader = options.uploader ?? createUploader(this.plainFetch);
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: this.authHeaders,
      fetch: this.fetchWithRetry,
    });
  }

  /** Any method and path of the API, as a raw Response (x-api-key and retries included). */
  send(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { ...this.authHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.fetchWithRetry(
      new Request(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  }

  // ---- single addresses ------------------------------------------------------------------------

  /** One POST: the verdict, or (over the sync budget, or with `async`) where to poll. */
  async submitValidation(email: string, options: ValidateOptions = {}): Promise<ValidationOutcome> {
    const body = { email, ...(options.metadata === undefined ? {} : { metadata: options.metadata }) };
    const answer = options.async
      ? await this.api.POST('/v1/email/validate-async', { body })
      : await this.api.POST('/v1/email/validate', {
          body: { ...body, ...(options.waitMs === undefined ? {} : { timeoutMs: options.waitMs }) },
        });
    return outcome(answer);
  }

  /** One poll of a validation request; a failed request (500) throws MailvetApiError. */
  async getValidation(requestId: string): Promise<ValidationOutcome> {
    return outcome(await this.api.GET('/v1/email/validate/{requestId}', { params: { path: { requestId } } }));
  }

  /** Polls a pending request, Retry-After apart, until it has a verdict. */
  async waitForValidation(
    pending: { requestId: string; retryAfter?: number },
    timeoutMs = 300_000,
  ): Promise<ValidationResult | PolledValidationResult> {
    const deadline = Date.now() + timeoutMs;
    let waitSeconds = pending.retryAfter ?? 1;
    for (;;) {
      if (Date.now() + waitSeconds * 1000 > deadline)
        throw new Error(`validation ${pending.requestId} still pending after ${timeoutMs} ms`);
      await (this.options.sleep ?? sleep)(waitSeconds * 1000);
      const next = await this.getValidation(pending.requestId);
      if (next.done) return next.result;
      waitSeconds = next.pending.retryAfter;
    }
  }

  /** Validates one address and returns its verdict, polling when the API answers 202. */
  async validate(
    email: string,
    options: ValidateOptions = {},
  ): Promise<ValidationResult | PolledValidationResult> {
    const first = await this.submitValidation(email, options);
    return first.done ? first.result : this.waitForValidation(first.pending, options.timeoutMs);
  }

  // ---- a batch of addresses --------------------------------------------------------------------

  /** One POST of up to 100 addresses: each one's verdict, or where to poll for it, in input order. */
  async submitBatch(emails: readonly string[], options: BatchOptions = {}): Promise<BatchResults> {
    const request = {
      emails: [...emails],
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      ...(options.waitMs === undefined ? {} : { timeoutMs: options.waitMs }),
    };
    return body<BatchResults>(await this.api.POST('/v1/email/validate-batch', { body: request }));
  }

  /** Validates up to 100 addresses in one call, polling those still running; verdicts in input order. */
  async validateBatch(
    emails: readonly string[],
    options: BatchOptions = {},
  ): Promise<(ValidationResult | PolledValidationResult)[]> {
    const { results } = await this.submitBatch(emails, options);
    return Promise.all(
      results.map((item) =>
        isPendingItem(item) ? this.waitForValidation(item, options.timeoutMs) : Promise.resolve(item),
      ),
    );
  }

  // ---- bulk jobs -------------------------------------------------------------------------------

  async createJob(request: CreateJobRequest): Promise<CreatedJob> {
    return body<CreatedJob>(await this.api.POST('/v1/email/validate-file', { body: request }));
  }

  async getJob(jobId: string): Promise<JobStatus> {
    return body<JobStatus>(
      await this.api.GET('/v1/email/validate-file/{jobId}', { params: { path: { jobId } } }),
    );
  }

  /** The company's jobs, newest first (`limit`, `offset`, `status` as the API reads them). */
  async listJobs(query: JobListQuery = {}): Promise<JobList> {
    return body<JobList>(await this.api.GET('/v1/email/validate-file', { params: { query } }));
  }

  /**
   * Runs a completed estimate (a job created with `estimate: true`) in full: a new job over the same
   * upload, with the same options; nothing to upload. Its body is a created job's.
   */
  async runEstimate(jobId: string): Promise<CreatedJob> {
    return body<CreatedJob>(
      await this.api.POST('/v1/email/validate-file/{jobId}/run', { params: { path: { jobId } } }),
    );
  }

  /** Deletes a job and its files (an active job is cancelled first); 404 afterwards. */
  async deleteJob(jobId: string): Promise<void> {
    const answer = await this.api.DELETE('/v1/email/validate-file/{jobId}', { params: { path: { jobId } } });
    if (!answer.response.ok) throw apiError(answer.response, answer.error);
  }

  /** This month's (or `month`'s, YYYY-MM) validations against quota and credits. */
  async getUsage(month?: string): Promise<Usage> {
    const query = month === undefined ? {} : { month };
    return body<Usage>(await this.api.GET('/v1/usage', { params: { query } }));
  }

  /**
   * The download descriptor of a completed job (409 "Job is not completed" before that). `status`
   * keeps only rows with those statuses; `columns: ['status', 'reason']` adds `mailvet_reason`; `unique`
   * leaves out duplicate rows.
   */
  async getDownload(jobId: string, filter: DownloadFilter = {}): Promise<DownloadDescriptor> {
    const query = {
      ...(filter.status?.length ? { status: filter.status.join(',') } : {}),
      ...(filter.columns?.length ? { columns: filter.columns.join(',') } : {}),
      ...(filter.unique ? { unique: 'true' as const } : {}),
    };
    return body<DownloadDescriptor>(
      await this.api.GET('/v1/email/validate-file/{jobId}/download', { params: { path: { jobId }, query } }),
    );
  }

  /** PUTs a file to a job's presigned upload URL and returns the storage's answer as it is. */
  putFile(
    uploadUrl: string,
    file: UploadBody,
    onProgress: (sentBytes: number, totalBytes: number) => void = () => undefined,
  ): Promise<UploadAnswer> {
    return this.uploader(uploadUrl, file, onProgress);
  }

  /** PUTs a file to a job's presigned upload URL; anything but 200 throws MailvetApiError. */
  async uploadFile(
    uploadUrl: string,
    file: UploadBody,
    onProgress?: (sentBytes: number, totalBytes: number) => void,
  ): Promise<void> {
    const answer = await this.putFile(uploadUrl, file, onProgress);
    if (answer.status !== 200) throw storageError(answer.status, answer.text);
  }

  /** Reads a job's status until it leaves awaiting_upload and processing; returns the last status. */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    let every = options.pollIntervalMs ?? firstPollMs;
    for (;;) {
      const job = await this.getJob(jobId);
      options.onStatus?.(job);
      if (!activeStates.has(job.status)) return job;
      if (Date.now() + every > deadline)
        throw new Error(`job ${jobId} still ${job.status} after ${options.timeoutMs} ms`);
      await (this.options.sleep ?? sleep)(every);
      if (options.pollIntervalMs === undefined) every = Math.min(every * 2, lastPollMs);
    }
  }

  /** GETs a presigned download URL (no API key); anything but 200 throws MailvetApiError. */
  async fetchResults(downloadUrl: string): Promise<Response> {
    const response = await this.plainFetch(downloadUrl);
    if (response.status !== 200) throw storageError(response.status, await response.text());
    return response;
  }

  /**
   * The whole bulk flow for a file: create the job, upload it (`upload` receives the presigned URL),
   * follow the job until it ends and, when it completed, fetch its download descriptor.
   */
  async runFileJob(
    options: ValidateFileOptions,
    upload: (uploadUrl: string) => Promise<void>,
    onProgress: ProgressListener = () => undefined,
  ): Promise<FileJobEnd> {
    const { pollIntervalMs, timeoutMs, ...request } = options;
    const created = await this.createJob(request);
    await upload(created.uploadUrl);
    const job = await this.waitForJob(created.jobId, {
      pollIntervalMs,
      timeoutMs,
      onStatus: (status) => onProgress({ phase: 'processing', job: status }),
    });
    // an estimate completes with its projection and has no results file
    if (job.status !== 'completed' || job.estimate) return { jobId: created.jobId, job };
    return { jobId: created.jobId, job, download: await this.getDownload(created.jobId) };
  }

  /** Validates a whole CSV file: create, upload with byte progress, follow, download the results. */
  async validateFile(
    file: UploadBody,
    options: ValidateFileOptions,
    onProgress: ProgressListener = () => undefined,
  ): Promise<FileValidation> {
    const end = await this.runFileJob(
      options,
      (url) =>
        this.uploadFile(url, file, (sentBytes, totalBytes) =>
          onProgress({ phase: 'upload', sentBytes, totalBytes }),
        ),
      onProgress,
    );
    if (!end.download) return end;
    const response = await this.fetchResults(end.download.downloadUrl);
    const results = await readWithProgress(response, (receivedBytes, totalBytes) =>
      onProgress({ phase: 'download', receivedBytes, totalBytes }),
    );
    return { ...end, results };
  }
}

export function createMailvetClient(options: MailvetClientOptions): MailvetClient {
  return new MailvetClient(options);
}

interface FetchAnswer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The body of a successful answer; a failed one throws MailvetApiError with the API's text. */
function body<T>(answer: FetchAnswer): T {
  if (!answer.response.ok) throw apiError(answer.response, answer.error);
  return answer.data as T;
}

function outcome(answer: FetchAnswer): ValidationOutcome {
  if (answer.response.status === 202) return { done: false, pending: body<PendingValidation>(answer) };
  return { done: true, result: body<ValidationResult>(answer) };
}

/** A response body as bytes, reporting bytes received (total from Content-Length when known). */
export async function readWithProgress(
  response: Response,
  onBytes: (receivedBytes: number, totalBytes: number | null) => void,
): Promise<Uint8Array> {
  const length = response.headers.get('content-length');
  const total = length === null ? null : Number(length);
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onBytes(bytes.byteLength, total);
    return bytes;
  }
  const parts: Uint8Array[] = [];
  let received = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.byteLength;
    onBytes(received, total);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}
