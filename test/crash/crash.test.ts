// The crash suite (npm run test:crash): the local runtime is SIGKILLed at each moment issue 10 lists and
// restarted on the same DATA_DIR; each job or request must then complete with every row and count right,
// one completion webhook, and a recovery time that is printed (goal: under 30 s after the restart).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { resetServiceClients } from '../../functions/clients/reset';
import { demoIds, demoKeys } from '../../local/demo/accounts';
import { monthlyUsage } from '../../functions/domain/usage';
import { runtimeFile } from '../../local/runtime';
import { BulkClient, buildCsv, startBulkDns, type CsvModel } from '../e2e/bulk-client';
import { fixtureDnsSettings } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { alive, jvmPid, RuntimeProcess, startWebhookReceiver, type WebhookReceiver } from './harness';

jest.setTimeout(300_000);

let dns: FixtureDns;
let receiver: WebhookReceiver;
const running: RuntimeProcess[] = [];
const dataDirs: string[] = [];
const timings: string[] = [];

beforeAll(async () => {
  dns = await startBulkDns();
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  for (const runtime of running.splice(0)) await runtime.stop();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await receiver?.close();
  await dns?.close();
  process.stdout.write(`\ncrash suite recovery times\n${timings.map((t) => `  ${t}`).join('\n')}\n`);
});

const rowCount = 1500;
const csv = (() => {
  const rows: CsvModel['rows'] = [['name', 'email']];
  for (let n = 0; n < rowCount; n++)
    rows.push([
      `Person ${n}`,
      n % 5 === 0 ? `x${n}@nowhere.test` : n % 11 === 0 ? `p${n}@slow.test` : `p${n}@ok.test`,
    ]);
  return buildCsv({ delimiter: ',', header: true, emailColumn: 1, rows });
})();

function settings(): Record<string, string> {
  return {
    ...fixtureDnsSettings(dns),
    // Many chunks, so a crash lands among them.
    CHUNK_SIZE_BYTES: '1024',
    RATE_LIMIT_PER_SECOND: '1000',
  };
}

async function startFresh(): Promise<{ dataDir: string; runtime: RuntimeProcess; client: BulkClient }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-crash-'));
  dataDirs.push(dataDir);
  const runtime = await RuntimeProcess.start(dataDir, settings());
  running.push(runtime);
  return { dataDir, runtime, client: new BulkClient(runtime.baseUrl, demoKeys.admin) };
}

/** kill -9, then a new runtime on the same data; returns it with the moment it was spawned. */
async function crashAndRestart(
  dataDir: string,
  runtime: RuntimeProcess,
): Promise<{ runtime: RuntimeProcess; client: BulkClient; restartedAt: number; readyMs: number }> {
  await runtime.kill();
  const restartedAt = Date.now();
  const again = await RuntimeProcess.start(dataDir, settings());
  running.push(again);
  return {
    runtime: again,
    client: new BulkClient(again.baseUrl, demoKeys.admin),
    restartedAt,
    readyMs: Date.now() - restartedAt,
  };
}

async function createJob(client: BulkClient): Promise<{ jobId: string; uploadUrl: string }> {
  return client.create({ fileName: 'crash.csv', emailColumn: 1, callbackUrl: receiver.url });
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every row and count right, the file byte for byte, one completion webhook; records the recovery time. */
async function expectCompleted(
  name: string,
  client: BulkClient,
  jobId: string,
  restart: { restartedAt: number; readyMs: number },
): Promise<void> {
  const seen = await client.waitForEnd(jobId, 180_000, 100).catch((error: unknown) => {
    throw new Error(`${String(error)}\nthe runtime's last output:\n${running.at(-1)?.tail() ?? ''}`);
  });
  const recoveredMs = Date.now() - restart.restartedAt;
  const final = seen[seen.length - 1]!;
  expect(final).toMatchObject({
    status: 'completed',
    totalEmails: rowCount,
    processedEmails: rowCount,
    statistics: csv.statistics,
  });
  const { file } = await client.download(jobId);
  expect(file.equals(csv.expected)).toBe(true);
  const webhooks = await until(
    async () => (receiver.forJob(jobId).length > 0 ? receiver.forJob(jobId) : undefined),
    'the completion webhook',
  );
  // A late duplicate would show within a moment of the first.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(receiver.forJob(jobId)).toHaveLength(1);
  expect(webhooks[0]!.body).toMatchObject({ jobId, status: 'completed', totalEmails: rowCount });
  timings.push(
    `${name}: ready ${(restart.readyMs / 1000).toFixed(1)} s, job completed ${(recoveredMs / 1000).toFixed(1)} s after the restart`,
  );
  expect(recoveredMs).toBeLessThan(90_000);
}

/** The Acme company's validations this month, read from the runtime's DynamoDB Local directly. */
async function usageOf(dataDir: string): Promise<number> {
  const { env } = JSON.parse(readFileSync(runtimeFile(dataDir), 'utf8')) as { env: Record<string, string> };
  Object.assign(process.env, env);
  resetServiceClients();
  try {
    return await monthlyUsage(demoIds.acme);
  } finally {
    resetServiceClients();
  }
}

function noPartialFiles(dataDir: string): boolean {
  return !readdirSync(path.join(dataDir, 's3'), { recursive: true }).some((name) =>
    String(name).endsWith('.partial'),
  );
}

describe('the local runtime killed with SIGKILL and restarted on the same DATA_DIR', () => {
  it('finishes a job killed during the scan (a moment after the PUT answered 200)', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    expect((await client.upload(uploadUrl, csv.input)).status).toBe(200);
    const restart = await crashAndRestart(dataDir, runtime);
    await expectCompleted('during the scan', restart.client, jobId, restart);
  });

  it('finishes a job killed right after its chunks were queued', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    const scanned = runtime.waitFor(/"message":"upload scanned"/);
    expect((await client.upload(uploadUrl, csv.input)).status).toBe(200);
    await scanned;
    const restart = await crashAndRestart(dataDir, runtime);
    await expectCompleted('after chunks were queued', restart.client, jobId, restart);
  });

  it('finishes a job killed mid-processing', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    expect((await client.upload(uploadUrl, csv.input)).status).toBe(200);
    const at = await until(async () => {
      const body = await client.status(jobId);
      return body.processedEmails > 0 && body.processedEmails < rowCount ? body : undefined;
    }, 'some rows processed');
    expect(at.status).toBe('processing');
    const restart = await crashAndRestart(dataDir, runtime);
    await expectCompleted('mid-processing', restart.client, jobId, restart);
  });

  it('finishes a job killed during assembly (every row counted, not yet completed)', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    expect((await client.upload(uploadUrl, csv.input)).status).toBe(200);
    // Every chunk counted while the job is still processing: the last chunk is claiming the assembly or
    // writing the results file. Assembly is short, so a slow poll may land just after it instead. (Not
    // `awaiting_upload`: the job reads so until its scan starts, and a kill then is the scan's case.)
    const at = await until(async () => {
      const body = await client.status(jobId);
      const counted = body.status === 'processing' && body.processedEmails === rowCount;
      return counted || body.status === 'completed' ? body : undefined;
    }, 'every row counted');
    const restart = await crashAndRestart(dataDir, runtime);
    await expectCompleted(`during assembly (killed while ${at.status})`, restart.client, jobId, restart);
  });

  it('sends the webhook once for a job killed right after completion', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    const completed = runtime.waitFor(/"message":"bulk job completed"/, 120_000);
    expect((await client.upload(uploadUrl, csv.input)).status).toBe(200);
    await completed;
    const restart = await crashAndRestart(dataDir, runtime);
    await expectCompleted('right after completion', restart.client, jobId, restart);
  });

  it('finishes a job whose upload was cut by the crash, with the same upload URL after the restart', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    const url = new URL(uploadUrl);
    const request = http.request(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv', 'content-length': csv.input.length },
    });
    request.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      request.write(csv.input.subarray(0, csv.input.length / 2), () => resolve()),
    );
    const restart = await crashAndRestart(dataDir, runtime);
    request.destroy();
    expect(noPartialFiles(dataDir)).toBe(true);
    expect((await restart.client.status(jobId)).status).toBe('awaiting_upload');
    // The S3 port is the same, so the URL handed out before the crash still works.
    expect((await restart.client.upload(uploadUrl, csv.input)).status).toBe(200);
    await expectCompleted('during an upload', restart.client, jobId, restart);
  });

  it('answers a validate-async request killed right after its 202, counting it once', async () => {
    const { dataDir, runtime } = await startFresh();
    const headers = { 'x-api-key': demoKeys.admin, 'content-type': 'application/json' };
    const accepted = await fetch(`${runtime.baseUrl}/v1/email/validate-async`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email: 'p1@ok.test' }),
    });
    expect(accepted.status).toBe(202);
    const { pollUrl } = (await accepted.json()) as { pollUrl: string };
    const restart = await crashAndRestart(dataDir, runtime);
    const base = restart.runtime.baseUrl;
    const result = await until(async () => {
      const response = await fetch(new URL(new URL(pollUrl, base).pathname, base), { headers });
      if (response.status === 202) return undefined;
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }, 'the validation result');
    const recoveredMs = Date.now() - restart.restartedAt;
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ email: 'p1@ok.test' });
    expect(await usageOf(dataDir)).toBe(1);
    timings.push(
      `after a validate-async 202: ready ${(restart.readyMs / 1000).toFixed(1)} s, answered ${(recoveredMs / 1000).toFixed(1)} s after the restart`,
    );
  });

  it('survives the death of DynamoDB Local alone: 503 meanwhile, the job completes, no restart', async () => {
    const { dataDir, runtime, client } = await startFresh();
    const { jobId, uploadUrl } = await createJob(client);
    expect((await client.upload(uploadUrl, csv.input)).status).toBe(200);
    await until(async () => {
      const body = await client.status(jobId);
      return body.processedEmails > 0 ? body : undefined;
    }, 'some rows processed');
    const pid = jvmPid(dataDir)!;
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();
    const during = await client.request('GET', `/v1/email/validate-file/${jobId}`);
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBe('5');
    expect(await during.json()).toEqual({ error: 'Service temporarily unavailable' });
    await runtime.waitFor(/DynamoDB Local restarted/, 90_000);
    expect(alive(pid)).toBe(false);
    await expectCompleted('DynamoDB Local killed', client, jobId, { restartedAt: killedAt, readyMs: 0 });
    expect(runtime.child.exitCode).toBeNull();
  });

  it('leaves no DynamoDB Local JVM behind when the runtime is SIGKILLed', async () => {
    const { dataDir, runtime } = await startFresh();
    const pid = jvmPid(dataDir)!;
    expect(alive(pid)).toBe(true);
    await runtime.kill();
    await until(async () => (alive(pid) ? undefined : true), 'the JVM to exit', 30_000);
  });
});
