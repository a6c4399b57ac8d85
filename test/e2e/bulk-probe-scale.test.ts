// A probed bulk job bigger than one MX host can take quickly: 6,000 addresses at one host whose
// politeness limits (2 sessions, 50 RCPT a second) make probing take two minutes, longer than the probe
// stage used to wait for a session slot (50 hand-backs, 2 s apart) before it settled silently on DNS
// verdicts. Every address must get its RCPT, no second may see more than M at the host, and every
// verdict must be right, with nothing left unprobed and the expected finish time shown meanwhile.
import { fixtureProbeSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';
import { mailboxRule, startBatchSmtp, type BatchSmtp } from '../unit/validation/fixtures/batch-smtp';
import { BulkClient, type JobBody } from './bulk-client';

jest.setTimeout(420_000);

const addresses = 6_000;
const maxSessions = 2;
const rcptPerSecond = 50;

let dns: FixtureDns;
let smtp: BatchSmtp;
let runtime: TestRuntime;
let client: BulkClient;
/** When each probe RCPT for a job address reached the host (ms). */
const rcptAt: number[] = [];

beforeAll(async () => {
  dns = await startFixtureDns({
    'big.test': { mx: [{ exchange: 'mx.big.test', priority: 10 }] },
    'mx.big.test': { a: ['127.0.0.1'] },
  });
  const rule = mailboxRule();
  smtp = await startBatchSmtp({
    rcpt: (address, ctx) => {
      // the engine's catch-all test of the domain is a single probe, outside the stage's politeness
      if (!address.startsWith('mailvet-probe-')) rcptAt.push(Date.now());
      return rule(address, ctx);
    },
  });
  runtime = await startTestRuntime({
    ...fixtureProbeSettings(dns, smtp, 5000),
    SMTP_MAX_SESSIONS_PER_HOST: String(maxSessions),
    SMTP_RCPT_PER_SECOND_PER_HOST: String(rcptPerSecond),
  });
  client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
});

afterAll(async () => {
  await runtime?.stop();
  await smtp?.close();
  await dns?.close();
});

/** Every tenth address does not exist (the fixture answers 5.1.1 to unknown*). */
const emailOf = (n: number) => (n % 10 === 0 ? `unknown${n}@big.test` : `person${n}@big.test`);

it('probes all 6,000 addresses at one busy MX host, politely, and gets every verdict right', async () => {
  const emails = Array.from({ length: addresses }, (_, n) => emailOf(n));
  const { jobId, uploadUrl } = await client.create({ emailColumn: 0 });
  expect((await client.upload(uploadUrl, Buffer.from(`email\n${emails.join('\n')}\n`))).status).toBe(200);
  const seen: JobBody[] = await client.waitForEnd(jobId, 400_000, 1000);
  const final = seen.at(-1)! as JobBody & { unprobedEmails: number };
  expect(final).toMatchObject({ status: 'completed', totalEmails: addresses, unprobedEmails: 0 });
  expect(final.statistics).toEqual({
    block_bounce_risk: addresses / 10,
    dead_email: 0,
    do_not_mail_abuse: 0,
    safe: addresses - addresses / 10,
    some_risk: 0,
  });

  // every address got its RCPT (none settled on its DNS verdict unasked)
  const asked = new Set(smtp.stats.rcpts);
  expect(emails.filter((e) => !asked.has(e))).toEqual([]);
  // politeness held at the host: at most N sessions, and RCPT at M a second. The fixture server runs in
  // this process, so on a loaded machine an RCPT sent late in one second can be read early in the next:
  // the rate is checked over 5 s windows with one second of slack (M per calendar second, measured at
  // an undisturbed host, is bench:probe's check); without the pacer two pipelined sessions would send
  // thousands a second here.
  expect(smtp.stats.maxOpen).toBeLessThanOrEqual(maxSessions);
  const times = [...rcptAt].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + 5000) j++;
    busiest = Math.max(busiest, j - i);
  }
  expect(busiest).toBeLessThanOrEqual(6 * rcptPerSecond);
  expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(
    ((addresses - 6 * rcptPerSecond) / rcptPerSecond) * 1000,
  );

  // while batches waited for the host, the job said when probing should end
  expect(seen.some((b) => (b as { expectedFinishAt?: string }).expectedFinishAt !== undefined)).toBe(true);

  // and every row carries the right status
  const lines = (await client.download(jobId)).file.toString('utf8').trim().split('\n').slice(1);
  expect(lines).toHaveLength(addresses);
  const wrong = lines.filter((line) => {
    const [email, status] = line.split(',');
    return status !== (email!.startsWith('unknown') ? 'block_bounce_risk' : 'safe');
  });
  expect(wrong).toEqual([]);
});
