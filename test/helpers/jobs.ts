// A bulk job put straight into the table in `processing`, as the scan leaves it: for suites that drive
// the stages after it without uploading a file.
import { jobLimits } from '../../functions/domain/bulk/limits';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import { markProcessing, putNewJob } from '../../functions/store/jobs/transitions';

/**
 * Puts a new job of the company and moves it to processing (its deadline an hour away unless given);
 * false when the move did not happen.
 */
export async function putProcessingJob(
  companyId: string,
  jobId: string,
  deadlineAtMs = Date.now() + 3600_000,
): Promise<boolean> {
  await putNewJob(
    {
      jobId,
      companyId,
      emailColumn: 0,
      createdAt: new Date().toISOString(),
      uploadExpiresAtMs: Date.now() + 60_000,
      slot: 0,
      counts: emptyStatistics(),
    },
    jobLimits,
  );
  return markProcessing(
    { companyId, jobId },
    { now: new Date().toISOString(), deadlineAtMs, scanLeaseUntilMs: 0 },
  );
}
