// Stock OpenSMTPD as the MX of two domains (live, unknown and disabled mailboxes; a catch-all domain
// with one refused mailbox), probed through the sync endpoint, the batch endpoint and a bulk job of the
// local runtime (SMTP_PROBE=true). OpenSMTPD answers a recipient its virtual table lacks with "524
// 5.2.4 Mailing list expansion problem: <address>" (the code of a mailing list, the meaning of an
// unknown user). Counted in its own verbose log: sessions at once, refusals, messages (none).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../../helpers/local-runtime';
import { startOpenSmtpd, type OpenSmtpd } from '../../helpers/real-servers/opensmtpd';
import { viaBatch, viaBulk, viaSync, wrongVerdicts } from '../../helpers/real-servers/probe-paths';
import { startFixtureDns, type FixtureDns } from '../../unit/validation/fixtures/dns-server';

const HOST = '127.0.33.13';
const PORT = 2525;
const domain = 'live.smtpd.test';
const catchAllDomain = 'catchall.smtpd.test';
const live = ['alice', 'bob', 'carol'].map((l) => `${l}@${domain}`);
const disabled = ['gone', 'left'].map((l) => `${l}@${domain}`);
const unknown = Array.from({ length: 24 }, (_, i) => `nobody${String(i).padStart(2, '0')}@${domain}`);
const catchAllLive = [`anyone@${catchAllDomain}`, `dana@${catchAllDomain}`];
const catchAllRefused = [`former@${catchAllDomain}`];
const SESSIONS = 2;

const want: Record<string, string> = Object.fromEntries([
  ...live.map((e) => [e, 'safe']),
  ...catchAllLive.map((e) => [e, 'safe']),
  ...disabled.map((e) => [e, 'block_bounce_risk']),
  ...unknown.map((e) => [e, 'block_bounce_risk']),
  ...catchAllRefused.map((e) => [e, 'block_bounce_risk']),
]);
const everyone = Object.keys(want).sort();

let dir: string;
let dns: FixtureDns;
let smtpd: OpenSmtpd;
let local: TestRuntime;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-smtpd-'));
  dns = await startFixtureDns({
    [domain]: { mx: [{ exchange: 'mx.smtpd.test', priority: 10 }] },
    [catchAllDomain]: { mx: [{ exchange: 'mx.smtpd.test', priority: 10 }] },
    'mx.smtpd.test': { a: [HOST] },
  });
  smtpd = await startOpenSmtpd({
    dir,
    host: HOST,
    port: PORT,
    domain,
    live,
    disabled,
    catchAllDomain,
    catchAllRefused,
    sender: 'probe@sender.smtpd.test',
  });
  local = await startTestRuntime({
    ...fixtureDnsSettings(dns, 3000),
    RATE_LIMIT_PER_SECOND: '1000',
    SMTP_PROBE: 'true',
    SMTP_PORT: String(PORT),
    SMTP_TIMEOUT_MS: '5000',
    SMTP_MAIL_FROM: 'probe@sender.smtpd.test',
    SMTP_MAX_SESSIONS_PER_HOST: String(SESSIONS),
    PROBE_CACHE_DAYS: '0',
    PROBE_GREYLIST_DELAY_SECONDS: '2',
  });
}, 60_000);

afterAll(async () => {
  await local?.stop();
  await smtpd?.stop();
  await dns?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function expectPoliteAndNoData(): void {
  const c = smtpd.counts();
  expect(c.messages).toBe(0);
  expect(c.maxOpen).toBeLessThanOrEqual(SESSIONS);
}

describe('probing stock OpenSMTPD', () => {
  it('sync endpoint: "524 5.2.4 Mailing list expansion problem" is an unknown mailbox', async () => {
    const got = await viaSync(local, everyone, 12);
    expect(wrongVerdicts(got, want)).toEqual([]);
    expect(got.get(unknown[0]!)).toMatchObject({ reason: 'mailbox_not_found', smtpProbe: 'not_found' });
    expect(got.get(`former@${catchAllDomain}`)).toMatchObject({ reason: 'mailbox_disabled' });
    expect(smtpd.counts().refusals.get(unknown[0]!)?.[0]).toMatch(/^524 5\.2\.4 /);
    expectPoliteAndNoData();
  }, 120_000);

  it('batch endpoint: the same verdicts, the same limits', async () => {
    const got = await viaBatch(local, everyone);
    expect(wrongVerdicts(got, want)).toEqual([]);
    expectPoliteAndNoData();
  }, 120_000);

  it('bulk job: the same verdicts, the same limits', async () => {
    const got = await viaBulk(local, everyone);
    expect(wrongVerdicts(got, want)).toEqual([]);
    expectPoliteAndNoData();
  }, 180_000);
});
