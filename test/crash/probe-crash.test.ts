// A probed bulk job killed with SIGKILL mid-probing and restarted on the same DATA_DIR: the dead
// process's MX session leases must not keep its batches from their host (they used to be held for their
// 150 s lifetime while the redelivered batches gave up after 100 s, leaving rows unprobed and dead
// mailboxes `safe`). Every verdict must be right, with nothing left unprobed.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demoKeys } from '../../local/demo/accounts';
import { BulkClient, type JobBody } from '../e2e/bulk-client';
import { fixtureProbeSettings } from '../helpers/local-runtime';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';
import { mailboxRule, startBatchSmtp, type BatchSmtp } from '../unit/validation/fixtures/batch-smtp';
import { RuntimeProcess } from './harness';

jest.setTimeout(300_000);

const rows = 2_000;
/** M of the run: 2,000 addresses take 100 s at the host, longer than the old hand-back limit. */
const rcptPerSecond = 20;
let dns: FixtureDns;
let smtp: BatchSmtp;
let dataDir: string;
const running: RuntimeProcess[] = [];

beforeAll(async () => {
  dns = await startFixtureDns({
    'crash.test': { mx: [{ exchange: 'mx.crash.test', priority: 10 }] },
    'mx.crash.test': { a: ['127.0.0.1'] },
  });
  smtp = await startBatchSmtp({ rcpt: mailboxRule() });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-probe-crash-'));
});

afterAll(async () => {
  for (const runtime of running) await runtime.stop();
  await smtp?.close();
  await dns?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function settings(): Record<string, string> {
  return {
    ...fixtureProbeSettings(dns, smtp, 5000),
    SMTP_RCPT_PER_SECOND_PER_HOST: String(rcptPerSecond),
    // several chunks, so batches of more than one chunk are in flight at the kill
    CHUNK_SIZE_BYTES: '16384',
  };
}

/** Every fifth address does not exist (the fixture answers 5.1.1 to unknown*). */
const emailOf = (n: number) => (n % 5 === 0 ? `unknown${n}@crash.test` : `person${n}@crash.test`);

it('a probed job killed mid-probing gets every verdict right after a restart', async () => {
  const emails = Array.from({ length: rows }, (_, n) => emailOf(n));
  const first = await RuntimeProcess.start(dataDir, settings());
  running.push(first);
  const client = new BulkClient(first.baseUrl, demoKeys.admin);
  const { jobId, uploadUrl } = await client.create({ emailColumn: 0 });
  expect((await client.upload(uploadUrl, Buffer.from(`email\n${emails.join('\n')}\n`))).status).toBe(200);

  // kill -9 about half-way through probing, while both session slots at the host are held
  const deadline = Date.now() + 180_000;
  while (smtp.stats.rcpts.length < rows / 2 || smtp.stats.open < 2) {
    if (Date.now() > deadline) throw new Error(`probing never got half-way:\n${first.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await first.kill();
  expect(new Set(smtp.stats.rcpts).size).toBeLessThan(rows);
  // the dead process's connections close with it
  while (smtp.stats.open > 0) await new Promise((resolve) => setTimeout(resolve, 20));

  const again = await RuntimeProcess.start(dataDir, settings());
  running.push(again);
  const readyAt = Date.now();
  // the dead process's leases on both slots are voided at start: two sessions at the host again within
  // seconds (left alone, one lease would hold its slot for the rest of its 150 s)
  let both = false;
  while (!both && Date.now() < readyAt + 30_000) {
    both = smtp.stats.open >= 2;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(both).toBe(true);
  const after = new BulkClient(again.baseUrl, demoKeys.admin);
  const seen: JobBody[] = await after.waitForEnd(jobId, 240_000, 1000);
  const final = seen.at(-1)! as JobBody & { unprobedEmails: number };
  expect(final).toMatchObject({ status: 'completed', totalEmails: rows, unprobedEmails: 0 });
  expect(final.statistics).toMatchObject({ block_bounce_risk: rows / 5, safe: rows - rows / 5 });

  const asked = new Set(smtp.stats.rcpts);
  expect(emails.filter((e) => !asked.has(e))).toEqual([]);
  const lines = (await after.download(jobId)).file.toString('utf8').trim().split('\n').slice(1);
  const wrong = lines.filter((line) => {
    const [email, status] = line.split(',');
    return status !== (email!.startsWith('unknown') ? 'block_bounce_risk' : 'safe');
  });
  expect({ rows: lines.length, wrong }).toEqual({ rows, wrong: [] });
});
