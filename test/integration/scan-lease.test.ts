// The scan lease on DynamoDB Local: a retried upload event takes over a scan whose lease its holder
// stopped renewing, and leaves a renewed one (a live scan) alone as soon as it sees the renewal;
// renewal holds only the run's own lease.
import { takeOverScan } from '../../functions/domain/bulk/scan-lease';
import { scanLeaseRenewSeconds, scanLeaseSeconds } from '../../functions/domain/bulk/limits';
import { resetServiceClients } from '../../functions/clients/reset';
import { recordScan } from '../../functions/store/jobs/chunk-accounting';
import { getJobItem, type JobItem } from '../../functions/store/jobs/item';
import { renewScanLease, takeScanLease } from '../../functions/store/jobs/slots-and-leases';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';
import { putProcessingJob } from '../helpers/jobs';

jest.setTimeout(120_000);

let dynamo: DynamoDbLocal;
const companyId = 'c-scan-lease';

beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  const table = 'mailvet-scan-lease-test';
  await ensureTable(dynamo.endpoint, table);
  Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, TABLE_NAME: table });
  resetServiceClients();
});

afterAll(async () => {
  resetServiceClients();
  await dynamo?.stop();
});

const t0 = 1_800_000_000_000;

/** A processing job whose scan lease, taken at t0, ends at t0 + the lease. */
async function scannedJob(jobId: string): Promise<JobItem> {
  expect(await putProcessingJob(companyId, jobId)).toBe(true);
  expect(await takeScanLease({ companyId, jobId }, t0, t0 + scanLeaseSeconds * 1000)).toBe(true);
  return (await getJobItem(companyId, jobId, true))!;
}

/**
 * A clock the test moves, and a sleep that moves it (and runs `during` with the time it wakes at, as
 * the lease's holder would meanwhile).
 */
function fakeTime(during: (wakeAt: number) => Promise<void> = async () => undefined) {
  let now = t0 + 1000;
  const slept: number[] = [];
  return {
    clock: () => new Date(now),
    sleep: async (ms: number) => {
      slept.push(ms);
      await during(now + ms);
      now += ms;
    },
    slept,
    total: () => slept.reduce((a, b) => a + b, 0),
  };
}

describe('takeOverScan', () => {
  test('a lease its holder stopped renewing is waited out, then taken', async () => {
    const job = await scannedJob('dead-holder');
    const time = fakeTime();
    const until = await takeOverScan(job, time);
    // a read a second until the renewal is overdue, then the lease's rest (it was taken a second
    // before) and a second's slack
    expect(time.total()).toBe(scanLeaseSeconds * 1000);
    expect(time.slept.slice(0, 3)).toEqual([1000, 1000, 1000]);
    expect(until).toBe(t0 + 1000 + time.total() + scanLeaseSeconds * 1000);
    expect((await getJobItem(companyId, 'dead-holder', true))?.scanLeaseUntilMs).toBe(until);
  });

  test('a lease renewed while it waits is a live scan: left alone', async () => {
    const job = await scannedJob('live-holder');
    const held = job.scanLeaseUntilMs!;
    const renewed = held + 10_000;
    const time = fakeTime(async () => {
      expect(await renewScanLease(job, held, renewed)).toBe(true);
    });
    expect(await takeOverScan(job, time)).toBeUndefined();
    expect((await getJobItem(companyId, 'live-holder', true))?.scanLeaseUntilMs).toBe(renewed);
  });

  test("a duplicate event during a live scan is acknowledged at its holder's next renewal", async () => {
    const job = await scannedJob('renewing-holder');
    // the holder renews every scanLeaseRenewSeconds from t0, as keepScanLease does
    let held = job.scanLeaseUntilMs!;
    let renewedAt = t0;
    const time = fakeTime(async (wakeAt) => {
      while (wakeAt >= renewedAt + scanLeaseRenewSeconds * 1000) {
        renewedAt += scanLeaseRenewSeconds * 1000;
        expect(await renewScanLease(job, held, renewedAt + scanLeaseSeconds * 1000)).toBe(true);
        held = renewedAt + scanLeaseSeconds * 1000;
      }
    });
    expect(await takeOverScan(job, time)).toBeUndefined();
    // the event arrived a second after the lease was taken: the renewal came 4 s later, not the lease's end
    expect(time.total()).toBe(scanLeaseRenewSeconds * 1000 - 1000);
    expect((await getJobItem(companyId, 'renewing-holder', true))?.scanLeaseUntilMs).toBe(held);
  });

  test('a lease given back while it waits (a failed scan) is taken at once', async () => {
    const job = await scannedJob('given-back');
    const time = fakeTime(async () => {
      if (time.slept.length === 2) expect(await takeScanLease(job, Number.MAX_SAFE_INTEGER, 0)).toBe(true);
    });
    const until = await takeOverScan(job, time);
    expect(time.slept).toEqual([1000, 1000]);
    expect(until).toBe(t0 + 3000 + scanLeaseSeconds * 1000);
  });

  test('a scan that recorded its outcome meanwhile is not taken over', async () => {
    const job = await scannedJob('finished');
    const time = fakeTime(async () => {
      const pin = { key: 'k', etag: 'e', size: 1 };
      const dialect = { delimiter: ',', encoding: 'utf-8', hasHeader: false, dataStart: 0 } as const;
      await recordScan(job, { pin, dialect, chunkCount: 1, totalEmails: 1 });
    });
    expect(await takeOverScan(job, time)).toBeUndefined();
  });

  test('a lease longer than a scan lease (an older run) is not waited for', async () => {
    expect(await putProcessingJob(companyId, 'old-lease')).toBe(true);
    expect(await takeScanLease({ companyId, jobId: 'old-lease' }, t0, t0 + 330_000)).toBe(true);
    const job = (await getJobItem(companyId, 'old-lease', true))!;
    const time = fakeTime();
    expect(await takeOverScan(job, time)).toBeUndefined();
    expect(time.slept).toEqual([]);
  });
});

describe('renewScanLease', () => {
  test("extends only the run's own lease, and none once the scan recorded its outcome", async () => {
    const job = await scannedJob('renewals');
    const held = job.scanLeaseUntilMs!;
    expect(await renewScanLease(job, held - 1, held + 5000)).toBe(false);
    expect(await renewScanLease(job, held, held + 5000)).toBe(true);
    expect(await renewScanLease(job, held, held + 9000)).toBe(false);
    const pin = { key: 'k', etag: 'e', size: 1 };
    const dialect = { delimiter: ',', encoding: 'utf-8', hasHeader: false, dataStart: 0 } as const;
    await recordScan(job, { pin, dialect, chunkCount: 1, totalEmails: 1 });
    expect(await renewScanLease(job, held + 5000, held + 9000)).toBe(false);
  });
});
