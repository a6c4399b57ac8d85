// A one-off migration (domain/migrations.ts): jobs written before the per-day counts existed carry no
// `countDay`, so the job list's totals miss them until they are added here.
import { tableName } from '../../clients/dynamodb';
import { scanPages } from '../dynamodb';
import { jobKey, jobsOfCompanyInStateIndex } from '../keys';
import { ttlAttribute } from '../table';
import { utcDay, writeCounted } from './day-counts';
import { getJobItem, isCounted, jobTtlSeconds, type JobLimits } from './item';

/** What the backfill did: the jobs it found without a count day, and those it added to the counts. */
export interface CountBackfill {
  found: number;
  counted: number;
}

/**
 * Adds every job without a count day to the counts: each in one transaction with its day item,
 * conditioned on its status and on having no count day, so a transition or a second run at the same
 * time never counts it twice (a job moved meanwhile is read again). Its TTL moves to the end of its day
 * like every counted job's, and it gets its per-state index entry. One Scan of the table (a one-off);
 * a second run finds nothing to add.
 */
export async function backfillJobCounts(limits: JobLimits): Promise<CountBackfill> {
  const outcome: CountBackfill = { found: 0, counted: 0 };
  const pages = scanPages({
    FilterExpression: 'entity = :job AND attribute_not_exists(countDay)',
    ProjectionExpression: 'companyId, jobId',
    ExpressionAttributeValues: { ':job': 'job' },
  });
  for await (const page of pages)
    for (const { companyId, jobId } of page) {
      outcome.found += 1;
      if (await countLegacyJob(String(companyId), String(jobId), limits)) outcome.counted += 1;
    }
  return outcome;
}

/** Counts one job without a count day; false when it is gone or was counted meanwhile. */
async function countLegacyJob(companyId: string, jobId: string, limits: JobLimits): Promise<boolean> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const job = await getJobItem(companyId, jobId, true);
    if (!job || job.countDay !== undefined) return false;
    const completed = job.status === 'completed' && job.completedAt !== undefined;
    const day = utcDay(completed ? job.completedAt! : job.createdAt);
    const state = jobsOfCompanyInStateIndex(companyId, job.status, job.createdAt, job.jobId);
    const indexed = job.status !== 'cancelled';
    const counted = await writeCounted(
      companyId,
      {
        Update: {
          TableName: tableName(),
          Key: jobKey(companyId, job.jobId),
          UpdateExpression: `SET countDay = :day, #ttl = :ttl${indexed ? ', gsi2pk = :g2pk, gsi2sk = :g2sk' : ''}`,
          ConditionExpression: '#status = :seen AND attribute_not_exists(countDay)',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': ttlAttribute },
          ExpressionAttributeValues: {
            ':day': day,
            ':ttl': jobTtlSeconds(day, completed, limits),
            ':seen': job.status,
            ...(indexed ? { ':g2pk': state.gsi2pk, ':g2sk': state.gsi2sk } : {}),
          },
        },
      },
      isCounted(job.status) ? [{ day, status: job.status, by: 1 }] : [],
    );
    if (counted) return true;
  }
  return false;
}
