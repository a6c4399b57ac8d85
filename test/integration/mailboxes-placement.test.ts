// Connected mailboxes against real mail servers (test/helpers/real-servers/mail-rig.ts: Postfix
// submission and MX, Dovecot IMAP, rspamd deciding Inbox or Junk, NSD for SPF/DKIM/DMARC): `npm start`
// and `npm run placement -- --day D` run as processes that trust the rig's CA through
// NODE_EXTRA_CA_CERTS, as an operator's would. Two domains over simulated days: the one whose SPF and
// DKIM pass ends with a high reputation, the other a low one, each within a few points of the share
// the filter gave (counted from the servers' own logs); a password changed on the server turns its
// mailbox credentials_error at the next run and back after reconnecting; a wrong password is refused
// at connect. The workspace endpoints answer these mailboxes as they answer imported ones.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { addDays, utcDate } from '../../functions/domain/workspace/dates';
import { startMailRig, type MailRig } from '../helpers/real-servers/mail-rig';
import { responseProblems } from '../helpers/openapi-check';
import { freeRuntimePort } from '../helpers/runtime-port';

// Every wait is for an event (a banner, an exit, a delivery); this only bounds a stuck run.
jest.setTimeout(900_000);

const root = path.resolve(__dirname, '../..');
const alice = { email: 'alice@good.example', password: 'alice-first-pass' };
const bob = { email: 'bob@spammy.example', password: 'bob-first-pass' };
const adminKey = 'demo-admin-key';
const testsPerDay = 3;
const today = utcDate(new Date());
const days = [0, 1, 2, 3, 4].map((n) => addDays(today, n));

let rig: MailRig;
let dataDir: string;
let runtime: ChildProcessWithoutNullStreams;
let runtimeOutput = '';
let baseUrl: string;
let env: Record<string, string>;

async function api(method: string, route: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { 'x-api-key': adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // every answer as docs/openapi.json describes it (a refused login's 400 carries the server's own
  // words, which the document can only describe with a placeholder)
  if (!(method === 'POST' && res.status === 400))
    expect(responseProblems(method, route.split('?')[0]!, res.status, text)).toEqual([]);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
}

/** `npm run placement -- --day D`, as a process; resolves with its output once it exits 0. */
function placement(day: string, waitSeconds = 60): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/placement.ts', '--day', day, '--wait-seconds', String(waitSeconds)],
      {
        cwd: root,
        env: { ...process.env, ...env },
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`placement ${day} exited ${code}: ${output}`)),
    );
  });
}

beforeAll(async () => {
  rig = await startMailRig({
    domains: [
      { name: 'good.example', spfDkimPass: true },
      { name: 'spammy.example', spfDkimPass: false },
    ],
    mailboxes: [alice, bob],
    addressBase: '127.0.37.10',
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-placement-'));
  const port = await freeRuntimePort();
  baseUrl = `http://localhost:${port}`;
  env = {
    DATA_DIR: dataDir,
    NODE_EXTRA_CA_CERTS: rig.caFile,
    ALLOW_PRIVATE_MX: 'true',
    DNS_SERVERS: '127.0.37.10:53',
    PLACEMENT_TESTS_PER_DAY: String(testsPerDay),
    // the daily timer must not fire during the test: the simulated days are run by hand
    PLACEMENT_HOUR_UTC: String((new Date().getUTCHours() + 12) % 24),
    LOG_LEVEL: 'debug',
  };
  runtime = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
  });
  runtime.stdout.on('data', (chunk: Buffer) => (runtimeOutput += chunk.toString()));
  runtime.stderr.on('data', (chunk: Buffer) => (runtimeOutput += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    runtime.stdout.on('data', () => runtimeOutput.includes('Ctrl-C') && resolve());
    runtime.on('exit', (code) => reject(new Error(`npm start exited ${code}: ${runtimeOutput}`)));
  });
});

afterAll(async () => {
  if (runtime && runtime.exitCode === null) {
    const exited = new Promise((resolve) => runtime.on('exit', resolve));
    runtime.kill('SIGTERM');
    await exited;
  }
  await rig?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('connected mailboxes on real mail servers', () => {
  let aliceId: string;
  let bobId: string;

  it('refuses a wrong password at connect with the server’s words, and stores nothing', async () => {
    const wrongImap = rig.connectBody(alice.email);
    wrongImap.imap.password = 'not-the-password';
    const res = await api('POST', '/v1/connected-mailboxes', wrongImap);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^IMAP login failed: .*\S/);
    const wrongSmtp = rig.connectBody(alice.email, 'starttls');
    wrongSmtp.smtp.password = 'not-the-password';
    const smtp = await api('POST', '/v1/connected-mailboxes', wrongSmtp);
    expect(smtp.status).toBe(400);
    expect(smtp.body.error).toMatch(/^SMTP login failed: 535/);
    const list = await api('GET', '/v1/connected-mailboxes?limit=1000');
    expect(list.body.mailboxes.map((m: { email: string }) => m.email)).not.toContain(alice.email);
  });

  it('connects both mailboxes: 201 with the list item, connected, no reputation, owned by the admin', async () => {
    const a = await api('POST', '/v1/connected-mailboxes', rig.connectBody(alice.email));
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      email: alice.email,
      domain: 'good.example',
      connectionStatus: 'connected',
      reputation: null,
      owner: { email: 'ada.admin@acme.example', firstName: 'Ada', lastName: 'Admin' },
    });
    expect(Object.keys(a.body)).toEqual([
      'connectedAt',
      'connectionStatus',
      'domain',
      'email',
      'id',
      'owner',
      'provider',
      'reputation',
      'statusUpdatedAt',
    ]);
    aliceId = a.body.id;
    const b = await api('POST', '/v1/connected-mailboxes', rig.connectBody(bob.email, 'starttls'));
    expect(b.status).toBe(201);
    bobId = b.body.id;
    const again = await api('POST', '/v1/connected-mailboxes', rig.connectBody(bob.email));
    expect(again.status).toBe(409);
    const listed = await api('GET', '/v1/connected-mailboxes?limit=1000');
    const mine = listed.body.mailboxes.filter((m: { id: string }) => [aliceId, bobId].includes(m.id));
    expect(mine).toHaveLength(2);
    expect(mine.every((m: { connectionStatus: string }) => m.connectionStatus === 'connected')).toBe(true);
  });

  it('measures reputation over simulated days: high for the passing domain, low for the spammy one, as the filter decided', async () => {
    for (const day of days) await placement(day);
    // what the servers' own logs say was filed where
    const deliveries = rig.deliveredFolders();
    const shareInInbox = (from: string, to: string) => {
      const mine = deliveries.filter(
        (d) => d.recipient === to && d.messageId.includes('@' + from.split('@')[1]),
      );
      return {
        count: mine.length,
        inbox: Math.round((100 * mine.filter((d) => d.folder === 'INBOX').length) / mine.length),
      };
    };
    const aliceShare = shareInInbox(alice.email, bob.email);
    const bobShare = shareInInbox(bob.email, alice.email);
    // every test mailvet sent is in the logs (a few log lines may lag the reading)
    expect(aliceShare.count).toBeGreaterThanOrEqual(testsPerDay * (days.length - 1));
    expect(bobShare.count).toBeGreaterThanOrEqual(testsPerDay * (days.length - 1));
    process.stdout.write(
      `placement shares from the servers' logs: ${JSON.stringify({ aliceShare, bobShare })}\n`,
    );
    const window = `?startDate=${days[0]}&endDate=${days[days.length - 1]}`;
    const a = await api('GET', `/v1/connected-mailboxes/${aliceId}${window}`);
    const b = await api('GET', `/v1/connected-mailboxes/${bobId}${window}`);
    // no value before the connection date + 3
    expect(a.body.history.slice(0, 3).map((p: { reputation: unknown }) => p.reputation)).toEqual([
      null,
      null,
      null,
    ]);
    expect(a.body.currentReputation).toBeGreaterThanOrEqual(80);
    expect(b.body.currentReputation).toBeLessThanOrEqual(20);
    expect(Math.abs(a.body.currentReputation - aliceShare.inbox)).toBeLessThanOrEqual(5);
    expect(Math.abs(b.body.currentReputation - bobShare.inbox)).toBeLessThanOrEqual(5);
    // the domains roll up as for imported mailboxes
    const good = await api('GET', `/v1/connected-domains/good.example${window}`);
    expect(good.body).toMatchObject({ mailboxCount: 1, currentReputation: a.body.currentReputation });
    // the tests found in spam were moved to the inbox and marked read
    const imap = new ImapFlow({
      host: rig.imap.host,
      port: rig.imap.port,
      secure: true,
      auth: { user: alice.email, pass: alice.password },
      tls: { ca: rig.imap.ca },
      logger: false,
    });
    await imap.connect();
    try {
      const junk = (await imap.list()).find((f) => f.specialUse === '\\Junk')!;
      const status = await imap.status(junk.path, { messages: true });
      expect(status && status.messages).toBe(0);
      const lock = await imap.getMailboxLock('INBOX');
      try {
        const fromBob = await imap.fetchAll('1:*', { envelope: true, flags: true });
        const tests = fromBob.filter((m) => m.envelope?.messageId?.includes('@spammy.example'));
        expect(tests).toHaveLength(testsPerDay * days.length);
        expect(tests.every((m) => m.flags?.has('\\Seen'))).toBe(true);
      } finally {
        lock.release();
      }
    } finally {
      await imap.logout();
    }
    expect(runtimeOutput).not.toContain(alice.password);
    expect(runtimeOutput).not.toContain(bob.password);
  });

  it('turns a mailbox whose password changed on the server credentials_error at the next run, and back after reconnecting', async () => {
    const before = await api('GET', `/v1/connected-mailboxes/${bobId}`);
    await rig.setPassword(bob.email, 'bob-second-pass');
    // bob's inbox cannot be read any more: alice's tests to it stay unfound until the wait runs out
    const output = await placement(addDays(days[days.length - 1]!, 1), 15);
    expect(output).not.toContain('bob-second-pass');
    const after = await api('GET', `/v1/connected-mailboxes/${bobId}`);
    expect(after.body.connectionStatus).toBe('credentials_error');
    expect(after.body.statusUpdatedAt).not.toBe(before.body.statusUpdatedAt);
    const filtered = await api(
      'GET',
      '/v1/connected-mailboxes?connectionStatus=credentials_error&limit=1000',
    );
    expect(filtered.body.mailboxes.map((m: { id: string }) => m.id)).toContain(bobId);
    expect((await api('GET', `/v1/connected-mailboxes/${aliceId}`)).body.connectionStatus).toBe('connected');

    expect((await api('DELETE', `/v1/connected-mailboxes/${bobId}`)).status).toBe(204);
    expect((await api('GET', `/v1/connected-mailboxes/${bobId}`)).status).toBe(404);
    const reconnected = await api('POST', '/v1/connected-mailboxes', rig.connectBody(bob.email));
    expect(reconnected.status).toBe(201);
    expect(reconnected.body.id).not.toBe(bobId);
    expect(reconnected.body.connectionStatus).toBe('connected');
    await placement(addDays(days[days.length - 1]!, 2));
    const fresh = await api('GET', `/v1/connected-mailboxes/${reconnected.body.id}`);
    expect(fresh.body.connectionStatus).toBe('connected');
  });
});
