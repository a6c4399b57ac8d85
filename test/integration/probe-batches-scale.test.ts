// One chunk of a probed job with 60,000 batches (one per MX host: a file of company domains on their own
// Microsoft 365 tenants) settled on DynamoDB Local through the store functions, many at once and some
// twice: every batch counts once, the job item stays a few hundred bytes (the old settled-id set passed
// DynamoDB's 400 KB item limit here), and exactly one settle sends the chunk on.
import { resetServiceClients } from '../../functions/clients/reset';
import { recordScan } from '../../functions/store/jobs/chunk-accounting';
import { getJobItem } from '../../functions/store/jobs/item';
import {
  recordBatchProgress,
  recordProbeHandoff,
  settleProbeBatch,
} from '../../functions/store/jobs/probe-accounting';
import { loadChunkVerdicts, type JobProbeState } from '../../functions/store/jobs/probe-state';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';
import { putProcessingJob } from '../helpers/jobs';

const BATCHES = 60_000;
/** Settles in flight at once (probe workers of one job). */
const CONCURRENCY = 24;
/** Every this many batches, the batch is delivered twice at the same time. */
const DUPLICATE_EVERY = 50;

let dynamo: DynamoDbLocal;
const companyId = 'c-probe-scale';
const job = { companyId, jobId: 'j-60k' };

beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  const table = 'mailvet-probe-scale-test';
  await ensureTable(dynamo.endpoint, table);
  Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, TABLE_NAME: table });
  resetServiceClients();
});

afterAll(async () => {
  resetServiceClients();
  await dynamo?.stop();
});

/** Runs `work` for 0..count-1, `concurrency` at a time. */
async function pool(count: number, concurrency: number, work: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The stored size of an item, near enough: attribute names and values as JSON text. */
function approximateBytes(item: object): number {
  return Buffer.byteLength(
    JSON.stringify(item, (_key, value: unknown) => (value instanceof Set ? [...value] : value)),
  );
}

it(
  'settles 60,000 batches of one chunk once each, keeps the job item small and sends the chunk on once',
  async () => {
    await putProcessingJob(companyId, job.jobId);
    await recordScan(job, {
      pin: { key: 'uploads/x.csv', etag: 'e', size: 10 },
      dialect: { delimiter: ',', encoding: 'utf-8', hasHeader: false, dataStart: 0 },
      chunkCount: 1,
      totalEmails: BATCHES,
    });
    // one address per batch, every row of the chunk handed to probing
    await recordProbeHandoff(job, 0, BATCHES, BATCHES);
    // one batch handed back (greylisted) before it settles: its progress is credited, then replaced
    await recordBatchProgress(job, 0, 7, 1, 3600);

    const sendsChunkOn: number[] = [];
    let counted = 0;
    const settle = async (batch: number) => {
      const after = await settleProbeBatch(
        job,
        0,
        batch,
        1,
        { [`user@d${batch}.example`]: 'accepted' },
        3600,
        undefined,
        // half say what a probe message knows (no legacy set: no read); the others read the job again
        batch % 2 === 0 ? { batches: BATCHES, legacySettled: false } : { batches: BATCHES },
      );
      if (!after.counted) return;
      counted++;
      if (after.lastOfChunk) sendsChunkOn.push(batch);
    };
    const started = Date.now();
    await pool(BATCHES, CONCURRENCY, async (batch) => {
      if (batch % DUPLICATE_EVERY === 0) await Promise.all([settle(batch), settle(batch)]);
      else await settle(batch);
    });
    const settleMs = Date.now() - started;

    const item = (await getJobItem(companyId, job.jobId, true))! as unknown as JobProbeState;
    expect(counted).toBe(BATCHES);
    expect(sendsChunkOn).toHaveLength(1);
    expect(item.probedEmails).toBe(BATCHES);
    expect(item.probeSettled).toEqual({ '0': BATCHES });
    expect(item.settledProbes).toBeUndefined();
    // 2 per row: the hand-off's 1 per address, then 1 per settled address (batch 7's progress replaced)
    expect(item.probeUnits).toEqual({ '0': 2 * BATCHES });
    expect(approximateBytes(item)).toBeLessThan(2048);
    // a batch delivered again later counts nothing
    expect(await settleProbeBatch(job, 0, 123, 1, {}, 3600)).toEqual({
      counted: false,
      why: 'batch settled before',
    });

    const verdicts = await loadChunkVerdicts(job, 0);
    expect(verdicts.size).toBe(BATCHES);
    expect(verdicts.get('user@d59999.example')).toBe('accepted');
    process.stdout.write(
      `${BATCHES} batches settled in ${settleMs} ms; job item about ${approximateBytes(item)} bytes\n`,
    );
  },
  15 * 60_000,
);
