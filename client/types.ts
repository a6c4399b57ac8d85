// The client's request and response types, taken from the generated `paths` of docs/openapi.json.
//
// Where the document still describes a response as a bare `{type: object}` (openapi-typescript turns
// that into `Record<string, never>`), `Described` falls back to the small named shape in the
// "Fallback shapes" section below. Once the document has a concrete schema, the generated type wins by
// itself, and the fallback can be deleted.
import type { paths } from './schema';

/** The generated JSON body when the document describes it, else `Fallback`. */
export type Described<Generated, Fallback> = [Generated] extends [Record<string, never>]
  ? Fallback
  : Generated;

type JsonBody<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type JsonRequest<Operation> = Operation extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

type CreateJobOp = paths['/v1/email/validate-file']['post'];
type GetJobOp = paths['/v1/email/validate-file/{jobId}']['get'];
type DownloadJobOp = paths['/v1/email/validate-file/{jobId}/download']['get'];
type ValidateOp = paths['/v1/email/validate']['post'];
type ValidateAsyncOp = paths['/v1/email/validate-async']['post'];
type ValidateBatchOp = paths['/v1/email/validate-batch']['post'];
type GetValidationOp = paths['/v1/email/validate/{requestId}']['get'];
type ListJobsOp = paths['/v1/email/validate-file']['get'];
type GetUsageOp = paths['/v1/usage']['get'];

// ---- Fallback shapes (the document's bodies as the handlers write them today) ----------------------

/** The five verdicts of bulk statistics and single results. */
export type VerdictStatus = 'safe' | 'block_bounce_risk' | 'some_risk' | 'dead_email' | 'do_not_mail_abuse';

/** A bulk job's states: the contract's three plus mailvet's `failed` and `expired`. */
export type JobState = 'awaiting_upload' | 'processing' | 'completed' | 'failed' | 'expired';

export interface CreatedJobShape {
  jobId: string;
  status: 'awaiting_upload';
  uploadExpiresIn: number;
  uploadUrl: string;
}

export interface JobStatusShape {
  jobId: string;
  status: JobState;
  totalEmails: number;
  processedEmails: number;
  percentComplete: number;
  createdAt: string;
  completedAt: string | null;
  statistics: Record<VerdictStatus, number> | null;
  /** Why a job failed, in words a person can act on. */
  error?: string;
}

export interface DownloadDescriptorShape {
  jobId: string;
  downloadUrl: string;
  expiresIn: number;
  format: 'csv';
}

export interface ValidationResultShape {
  didYouMean?: string;
  domain: Record<string, unknown>;
  email: string;
  mailbox: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  requestId: string;
  result: { reason: string; status: VerdictStatus; subStatus: string | null };
  validatedAt: string;
}

export interface PendingValidationShape {
  pollUrl: string;
  requestId: string;
  retryAfter: number;
}

export interface ErrorShape {
  error: string;
}

// ---- The client's types --------------------------------------------------------------------------

export type CreateJobRequest = JsonRequest<CreateJobOp>;
export type ValidateEmailRequest = JsonRequest<ValidateOp>;
export type ValidateBatchRequest = JsonRequest<ValidateBatchOp>;
/** POST /v1/email/validate-batch's 200: one item per address, in input order. */
export type BatchResults = JsonBody<ValidateBatchOp['responses'][200]>;
/** An address's verdict, or `{email, pollUrl, requestId}` while it is still running. */
export type BatchItem = BatchResults['results'][number];

export type CreatedJob = Described<JsonBody<CreateJobOp['responses'][202]>, CreatedJobShape>;
export type JobStatus = Described<JsonBody<GetJobOp['responses'][200]>, JobStatusShape>;
export type JobList = JsonBody<ListJobsOp['responses'][200]>;
export type JobListQuery = NonNullable<ListJobsOp['parameters']['query']>;
export type Usage = JsonBody<GetUsageOp['responses'][200]>;
export type DownloadDescriptor = Described<
  JsonBody<DownloadJobOp['responses'][200]>,
  DownloadDescriptorShape
>;
export type ValidationResult = Described<JsonBody<ValidateOp['responses'][200]>, ValidationResultShape>;
export type PendingValidation = Described<JsonBody<ValidateOp['responses'][202]>, PendingValidationShape>;
export type ErrorBody = Described<JsonBody<CreateJobOp['responses'][400]>, ErrorShape>;

export type AsyncPendingValidation = Described<
  JsonBody<ValidateAsyncOp['responses'][202]>,
  PendingValidationShape
>;
export type PolledValidationResult = Described<
  JsonBody<GetValidationOp['responses'][200]>,
  ValidationResultShape
>;
export type PolledPendingValidation = Described<
  JsonBody<GetValidationOp['responses'][202]>,
  PendingValidationShape
>;
