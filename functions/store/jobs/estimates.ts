// What an estimate job keeps beside the bulk job item (store/jobs.ts): that it is one, its outcome,
// and the job that runs it in full; plus the two conditional writes that set them.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { send, wroteIf } from '../dynamodb';
import { jobKey } from '../keys';
import type { JobItem, JobStatistics, ObjectPin, StoredDialect } from './item';

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

/**
 * Records a processing estimate's outcome and what the scan saw (the pinned object, the dialect, the
 * sample's rows usage never counts); false when the job is no longer processing.
 */
export function recordEstimate(
  job: JobRef,
  outcome: { pin: ObjectPin; dialect: StoredDialect; result: EstimateResult; uncounted: number },
): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression:
          'SET pin = :pin, dialect = :dialect, estimateResult = :result, uncountedEmails = :uncounted',
        ConditionExpression: '#status = :processing AND estimate = :true',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':true': true,
          ':pin': outcome.pin,
          ':dialect': outcome.dialect,
          ':result': outcome.result,
          ':uncounted': outcome.uncounted,
        },
      }),
    ),
  );
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
