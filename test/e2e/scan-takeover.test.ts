// A scan whose worker dies mid-file: the upload event's retry finds the short scan lease unrenewed,
// takes the scan over and the job completes within about one lease (30 s), not the old 330 s lease
// (which the retry, arriving at once, found held: the job then sat in processing until its deadline).
// A duplicate upload event during a live scan is acknowledged once it sees the lease renewed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { scanLeaseRenewSeconds, scanLeaseSeconds } from '../../functions/domain/bulk/limits';
import { uploadObjectKey } from '../../functions/domain/bulk/object-keys';
import { demoIds } from '../../local/demo/accounts';
import { useBulkRuntime } from './bulk-runtime';

jest.setTimeout(240_000);

const bulk = useBulkRuntime({
  // The killed worker's invocation logs an error by design.
  env: { LOG_LEVEL: 'silent' },
  workers: 2,
});

/** A file big enough that its scan is still running when the test sees the job processing. */
function bigFile(rows: number): Buffer {
  const lines = ['name,email'];
  for (let n = 0; n < rows; n++) lines.push(`Person number ${n} with a longer name,p${n}@ok.test`);
  return Buffer.from(lines.join('\n') + '\n');
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('a scan whose worker dies', () => {
  it('is taken over by the retried upload event within about one scan lease', async () => {
    const rows = 300_000;
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1, estimate: true });
    expect((await bulk.client.upload(uploadUrl, bigFile(rows))).status).toBe(200);
    const workers = bulk.runtime.runtime.workers!;
    const scanning = () => {
      const index = workers.running().findIndex((names) => names.includes('startProcessing'));
      return index >= 0 ? index : undefined;
    };
    await until('a worker scanning', scanning);
    // the job moved to processing and took its scan lease, and the scan is still running: kill it
    await until('the job processing', async () =>
      (await bulk.client.status(jobId)).status === 'processing' ? true : undefined,
    );
    const index = scanning();
    expect(index).toBeDefined();
    const killedAt = Date.now();
    await workers.kill(index!);
    expect((await bulk.client.status(jobId)).status).toBe('processing');

    const seen = await bulk.client.waitForEnd(jobId, 120_000, 200);
    const final = seen[seen.length - 1]!;
    expect(final).toMatchObject({ status: 'completed', totalEmails: 1000 });
    expect((final as { estimate?: { rows: number } }).estimate?.rows).toBe(rows);
    // one lease, its slack and the scan again; far less than the old lease
    expect((Date.now() - killedAt) / 1000).toBeLessThan(scanLeaseSeconds + 60);
  });
});

describe('a duplicate upload event during a live scan', () => {
  it("is acknowledged at the lease's next renewal, and the scan finishes the job", async () => {
    const rows = 300_000;
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1, estimate: true });
    expect((await bulk.client.upload(uploadUrl, bigFile(rows))).status).toBe(200);
    await until('the job processing', async () =>
      (await bulk.client.status(jobId)).status === 'processing' ? true : undefined,
    );
    // the same ObjectCreated event again (S3 delivers at least once), for this job's upload
    const sample = JSON.parse(
      readFileSync(path.join(__dirname, '../../events/startProcessing.json'), 'utf8'),
    ) as { Records: { s3: { object: { key: string } } }[] };
    sample.Records[0]!.s3.object.key = uploadObjectKey(demoIds.acme, jobId);
    const startedAt = Date.now();
    await bulk.runtime.runtime.invoke('startProcessing', sample);
    const seconds = (Date.now() - startedAt) / 1000;
    // one renewal and its slack, a loaded machine's margin; it used to wait out the whole lease
    expect(seconds).toBeLessThan(scanLeaseRenewSeconds + 8);
    expect(seconds).toBeLessThan(scanLeaseSeconds);

    const seen = await bulk.client.waitForEnd(jobId, 120_000, 200);
    expect(seen[seen.length - 1]).toMatchObject({ status: 'completed', totalEmails: 1000 });
  });
});
