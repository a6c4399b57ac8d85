// A bulk job's duplicate rows (domain/bulk/duplicates.ts): the counts the upload scan found, on the job
// item, written once before the scan records its outcome.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../../clients/dynamodb';
import { send, wroteIf } from '../dynamodb';
import { jobKey } from '../keys';

/** The duplicate attributes of a job item; absent on jobs without duplicates (and older jobs): none. */
export interface JobDuplicates {
  /** Rows whose address appeared earlier in the file. */
  duplicateEmails?: number;
  /** Of those, rows holding a test address (already among uncountedEmails). */
  duplicateTestEmails?: number;
}

/** Records the scan's duplicate counts on a processing job; false when it is no longer processing. */
export function recordDuplicates(
  job: { companyId: string; jobId: string },
  counts: Required<JobDuplicates>,
): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(job.companyId, job.jobId),
        UpdateExpression: 'SET duplicateEmails = :duplicates, duplicateTestEmails = :tests',
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':duplicates': counts.duplicateEmails,
          ':tests': counts.duplicateTestEmails,
        },
      }),
    ),
  );
}
