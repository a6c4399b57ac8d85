// Stock Exim 4 as the MX of two domains (live mailboxes, unknown ones, disabled ones; a catch-all domain
// with one refused mailbox), probed through the sync endpoint, the batch endpoint and a bulk job of the
// local runtime (SMTP_PROBE=true). Exim's default recipient ACL refuses every RCPT of a session once
// more than 10 were asked and fewer than half accepted ("Rejected for too many bad recipients"): a
// prober that reads that as about itself calls the unknown mailboxes after it safe. Counted in Exim's
// own log: sessions at once, RCPT per envelope, messages received (none: no DATA, ever).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../../helpers/local-runtime';
import { startExim, type Exim } from '../../helpers/real-servers/exim';
import { viaBatch, viaBulk, viaSync, wrongVerdicts } from '../../helpers/real-servers/probe-paths';
import { startFixtureDns, type FixtureDns } from '../../unit/validation/fixtures/dns-server';

const HOST = '127.0.33.11';
const PORT = 2525;
const domain = 'live.exim.test';
const catchAllDomain = 'catchall.exim.test';
const live = ['alice', 'bob', 'carol'].map((l) => `${l}@${domain}`);
const disabled = ['gone', 'left'].map((l) => `${l}@${domain}`);
const unknown = Array.from({ length: 24 }, (_, i) => `nobody${String(i).padStart(2, '0')}@${domain}`);
const catchAllLive = [`anyone@${catchAllDomain}`, `dana@${catchAllDomain}`];
const catchAllRefused = [`former@${catchAllDomain}`];
/** Sessions at once per MX host (SMTP_MAX_SESSIONS_PER_HOST), also Exim's smtp_accept_max_per_host. */
const SESSIONS = 2;

/** The truth: what each address must read on every path. */
const want: Record<string, string> = Object.fromEntries([
  ...live.map((e) => [e, 'safe']),
  ...catchAllLive.map((e) => [e, 'safe']),
  ...disabled.map((e) => [e, 'block_bounce_risk']),
  ...unknown.map((e) => [e, 'block_bounce_risk']),
  ...catchAllRefused.map((e) => [e, 'block_bounce_risk']),
]);
// interleaved as a real list is: the bad ones are not all at the end
const everyone = Object.keys(want).sort();

let dir: string;
let dns: FixtureDns;
let exim: Exim;
let local: TestRuntime;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-exim-'));
  dns = await startFixtureDns({
    [domain]: { mx: [{ exchange: 'mx.exim.test', priority: 10 }] },
    [catchAllDomain]: { mx: [{ exchange: 'mx.exim.test', priority: 10 }] },
    'mx.exim.test': { a: [HOST] },
  });
  exim = await startExim({
    dir,
    host: HOST,
    port: PORT,
    maxPerHost: SESSIONS,
    domain,
    live,
    disabled,
    catchAllDomain,
    catchAllRefused,
    sender: 'probe@sender.exim.test',
  });
  local = await startTestRuntime({
    ...fixtureDnsSettings(dns, 3000),
    RATE_LIMIT_PER_SECOND: '1000',
    SMTP_PROBE: 'true',
    SMTP_PORT: String(PORT),
    SMTP_TIMEOUT_MS: '5000',
    SMTP_MAIL_FROM: 'probe@sender.exim.test',
    SMTP_MAX_SESSIONS_PER_HOST: String(SESSIONS),
    PROBE_CACHE_DAYS: '0',
    PROBE_GREYLIST_DELAY_SECONDS: '2',
  });
}, 60_000);

afterAll(async () => {
  await local?.stop();
  await exim?.stop();
  await dns?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let refusedBefore = 0;
beforeEach(() => {
  refusedBefore = exim?.counts().refusedConnections ?? 0;
});

/**
 * What Exim counted must hold on every path: no message, never more sessions than the limit. Exim
 * counts a session until its process has ended, a moment after the socket closed: on a loaded machine
 * one session may still find the last one counted (refused, retried, and the host taught one session
 * fewer), never more.
 */
function expectPoliteAndNoData(): void {
  const c = exim.counts();
  expect(c.messages).toBe(0);
  expect(c.maxConnections).toBeLessThanOrEqual(SESSIONS);
  expect(c.refusedConnections - refusedBefore).toBeLessThanOrEqual(1);
}

describe('probing stock Exim 4', () => {
  it('sync endpoint: each address its verdict, at most N sessions at once from concurrent calls', async () => {
    const got = await viaSync(local, everyone, 12);
    expect(wrongVerdicts(got, want)).toEqual([]);
    expect(got.get(`former@${catchAllDomain}`)).toMatchObject({ reason: 'mailbox_disabled' });
    expect(got.get(`anyone@${catchAllDomain}`)).toMatchObject({ reason: 'catch_all' });
    expectPoliteAndNoData();
  }, 120_000);

  it('batch endpoint: the same verdicts, the same limits', async () => {
    const got = await viaBatch(local, everyone);
    expect(wrongVerdicts(got, want)).toEqual([]);
    expectPoliteAndNoData();
  }, 120_000);

  it('bulk job: "Rejected for too many bad recipients" ends the session, the rest is asked again', async () => {
    const before = exim.counts().tooManyBad;
    const got = await viaBulk(local, everyone);
    expect(wrongVerdicts(got, want)).toEqual([]);
    // the refusal did happen (the stock ACL is in force), and every address still got its own answer
    expect(exim.counts().tooManyBad - before).toBeGreaterThan(0);
    for (const email of unknown) expect(exim.counts().rcpts.get(email)).toBeGreaterThan(0);
    expectPoliteAndNoData();
  }, 180_000);
});
