// A bulk job in the local runtime's worker threads: the chunks and the scan run there, their AWS calls
// reach the recorded-call check, and a worker killed mid-chunk loses nothing (the chunk's message is
// not deleted; it comes back after its visibility timeout and completes).
import { buildCsv, type CsvModel } from './bulk-client';
import { useBulkRuntime } from './bulk-runtime';

jest.setTimeout(240_000);

const bulk = useBulkRuntime({
  // The killed worker's failed chunk logs an error by design.
  env: { LOG_LEVEL: 'silent' },
  // Longer than any chunk takes on a busy machine: only the killed worker's chunk comes back.
  chunkVisibilitySeconds: 10,
  workers: 2,
});

function sample(rowsCount: number): ReturnType<typeof buildCsv> {
  const rows: CsvModel['rows'] = [['name', 'email']];
  for (let n = 0; n < rowsCount; n++)
    rows.push([`Person ${n}`, n % 7 === 0 ? `x${n}@nowhere.test` : `p${n}@ok.test`]);
  return buildCsv({ delimiter: ',', header: true, emailColumn: 1, rows });
}

/** Resolves with the index of the first worker seen running `name` (polling every few ms). */
async function workerRunning(name: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = bulk.runtime.runtime.workers!.running();
    const index = running.findIndex((names) => names.includes(name) && !names.includes('startProcessing'));
    if (index >= 0) return index;
    if (Date.now() > deadline) throw new Error(`no worker ran ${name} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('bulk processing in worker threads', () => {
  it('runs the queue consumers and the scan in the workers, their calls recorded', async () => {
    const csv = sample(30);
    const { final, file } = await bulk.client.run(csv.input, { emailColumn: 1 });
    expect(final).toMatchObject({ status: 'completed', statistics: csv.statistics });
    expect(file!.equals(csv.expected)).toBe(true);
    const { workers, awsCalls } = bulk.runtime.runtime;
    expect(workers!.threadIds()).toHaveLength(2);
    // Calls made in the workers, attributed to their functions (stop() checks them against the policies).
    const by = (fn: string) => awsCalls.filter((call) => call.function === fn);
    expect(by('startProcessing').length).toBeGreaterThan(0);
    expect(by('validateChunk').length).toBeGreaterThan(0);
    // Worker invocation numbers never collide with the main thread's (the API's).
    const chunkInvocations = new Set(by('validateChunk').map((call) => call.invocation));
    for (const call of by('createJob')) expect(chunkInvocations.has(call.invocation)).toBe(false);
  });

  it('loses nothing when a worker is killed mid-chunk: the chunk comes back and the job completes', async () => {
    const csv = sample(60);
    const { jobId, uploadUrl } = await bulk.client.create({ emailColumn: 1 });
    const threadsBefore = bulk.runtime.runtime.workers!.threadIds();
    expect((await bulk.client.upload(uploadUrl, csv.input)).status).toBe(200);
    const index = await workerRunning('validateChunk');
    await bulk.runtime.runtime.workers!.kill(index);
    expect(bulk.runtime.runtime.workers!.threadIds()[index]).not.toBe(threadsBefore[index]);

    const seen = await bulk.client.waitForEnd(jobId, 180_000);
    expect(seen[seen.length - 1]).toMatchObject({
      status: 'completed',
      statistics: csv.statistics,
      totalEmails: 60,
      processedEmails: 60,
    });
    const { file } = await bulk.client.download(jobId);
    expect(file.equals(csv.expected)).toBe(true);
  });
});
