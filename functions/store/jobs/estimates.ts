// What an estimate job keeps beside the bulk job item (store/jobs.ts): that it is one, its outcome,
// and the job that runs it in full; plus the conditional writes that set them.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { send, wroteIf } from '../dynamodb';
import { jobKey } from '../keys';
import type { JobItem, JobLimits, JobStatistics, ObjectPin, StoredDialect } from './item';
import { markCompleted } from './transitions';

/** An estimate's outcome: the file's data rows, the rows validated, the statistics projected to the file. */
export interface EstimateResult {
  rows: number;
  sampled: number;
  statistics: JobStatistics;
}

/** The attributes of a job item that make it an estimate (absent on every other job). */
export interface JobEstimateState {
  /** Created with `"estimate": true`: validate a sample, write no results file. */
  estimate?: boolean;
  /** Set once, as the estimate completes. */
  estimateResult?: EstimateResult;
  /** The job that runs the estimate's file in full (POST .../run), once asked for. */
  runJobId?: string;
  /** On a run job: the estimate it runs. */
  estimateJobId?: string;
}

export type EstimateJobItem = JobItem & JobEstimateState;

type JobRef = Pick<JobItem, 'companyId' | 'jobId'>;

/** What an estimate records as it completes: its outcome and what the scan saw. */
export interface EstimateOutcome {
  pin: ObjectPin;
  dialect: StoredDialect;
  result: EstimateResult;
  /** The sample's rows usage never counts (test addresses). */
  uncounted: number;
}

/**
 * Completes a processing estimate and records its outcome in the same write (one round trip); false
 * when the job is no longer processing.
 * @param seen the job as the caller last knew it (saves a read; a stale one costs a read and a retry)
 */
export function completeEstimateJob(
  job: JobRef,
  outcome: EstimateOutcome,
  done: { completedAt: string; statistics: JobStatistics; totalEmails: number },
  limits: JobLimits,
  seen?: JobItem,
): Promise<boolean> {
  return markCompleted(job, done, limits, seen, {
    set: ['pin = :xpin', 'dialect = :xdialect', 'estimateResult = :xresult', 'uncountedEmails = :xuncounted'],
    values: {
      ':xtrue': true,
      ':xpin': outcome.pin,
      ':xdialect': outcome.dialect,
      ':xresult': outcome.result,
      ':xuncounted': outcome.uncounted,
    },
    condition: 'estimate = :xtrue',
  });
}

/**
 * Names `runJobId` the run of a completed estimate; false when the estimate is not completed or
 * already has a run other than `replacing` (an earlier run that failed or is gone).
 */
export function claimRun(estimate: JobRef, runJobId: string, replacing?: string): Promise<boolean> {
  const values: Record<string, unknown> = { ':completed': 'completed', ':true': true, ':run': runJobId };
  let free = 'attribute_not_exists(runJobId)';
  if (replacing !== undefined) {
    values[':old'] = replacing;
    free = `(${free} OR runJobId = :old)`;
  }
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(estimate.companyId, estimate.jobId),
        UpdateExpression: 'SET runJobId = :run',
        ConditionExpression: `#status = :completed AND estimate = :true AND ${free}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    ),
  );
}

/** Gives up a claimed run whose job could not be started, so the estimate can be run again. */
export async function releaseRun(estimate: JobRef, runJobId: string): Promise<void> {
  await wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(estimate.companyId, estimate.jobId),
        UpdateExpression: 'REMOVE runJobId',
        ConditionExpression: 'runJobId = :run',
        ExpressionAttributeValues: { ':run': runJobId },
      }),
    ),
  );
}
