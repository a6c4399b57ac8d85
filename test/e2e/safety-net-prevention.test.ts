// The Safety Net acting, on the local runtime against the Outreach stand-in: with a sequence activated,
// emails scheduled to a safe, a dead and an abuse address; within one look-ahead period (0.1 minutes)
// the two risky ones are paused on Outreach, listed as preventions with their reasons, and their owner
// has the prevention email; the safe one is untouched. A deactivated sequence stops nothing; an
// allowlisted address is never stopped. No token, code or secret reaches a log line.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startOutreachFake, type OutreachFake } from '../fakes/outreach';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { until } from '../helpers/until';
import { readConnection, openGrant } from '../../functions/store/safety-net';
import { api, connect, platformEnv, syncedAfter, type Json } from '../integration/safety-net-harness';

const lookaheadMs = 6_000;
let fake: OutreachFake;
let local: TestRuntime;
let mailboxId: number;
let sequenceId: number;
let sequenceRowId: string;
const logged: string[] = [];
const writes = { stdout: process.stdout.write, stderr: process.stderr.write };

function capture(stream: 'stdout' | 'stderr') {
  const original = writes[stream].bind(process[stream]);
  process[stream].write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    logged.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return original(chunk, ...rest);
  }) as typeof process.stdout.write;
}

async function preventions(): Promise<Json[]> {
  return (await api(local, 'GET', '/v1/safety-net/preventions?limit=100')).body.preventions;
}

function outbox(): { name: string; text: string }[] {
  const dir = path.join(local.dataDir, 'outbox');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith('safety_net_prevention'))
    .map((name) => ({ name, text: readFileSync(path.join(dir, name), 'utf8') }));
}

const stateOf = (id: number | null) => fake.control.record('sequenceState', id!)!.attributes.state;
const mailingState = (id: number) => fake.control.record('mailing', id)!.attributes.state;

async function setSequence(activated: boolean): Promise<void> {
  const patched = await api(local, 'PATCH', `/v1/safety-net-sequences/${sequenceRowId}`, {
    body: { activated },
  });
  expect(patched.status).toBe(200);
}

beforeAll(async () => {
  capture('stdout');
  capture('stderr');
  fake = await startOutreachFake({ host: '127.0.35.130' });
  const ownerId = fake.control.addUser({
    email: 'owen.owner@acme-sales.example',
    firstName: 'Owen',
    lastName: 'Owner',
  });
  mailboxId = fake.control.addMailbox({ userId: ownerId, email: 'owen@acme-sales.example' });
  sequenceId = fake.control.addSequence({ ownerId, name: 'Cold intro' });
  local = await startTestRuntime({
    ...platformEnv('outreach', fake),
    SAFETY_NET_LOOKAHEAD_MINUTES: '0.1',
    LOG_LEVEL: 'debug',
  });
  await connect(local, 'outreach', fake.oauthUrl);
  await syncedAfter(local, 'outreach', '');
  const rows = (await api(local, 'GET', '/v1/safety-net-sequences?service=outreach')).body.sequences;
  sequenceRowId = rows.find((r: Json) => r.crmSequenceId === String(sequenceId)).id;
}, 120_000);

afterAll(async () => {
  process.stdout.write = writes.stdout;
  process.stderr.write = writes.stderr;
  await local?.stop();
  await fake?.stop();
});

it('stops the dead and the abuse address of an activated sequence within one look-ahead, and leaves the safe one', async () => {
  await setSequence(true);
  // webhooks lost: the look-ahead alone must find them
  fake.control.dropWebhooks(3);
  const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
  const safe = fake.control.scheduleEmail({ mailboxId, to: 'safe@mailvet.test', sequenceId, scheduledAt });
  const dead = fake.control.scheduleEmail({ mailboxId, to: 'dead@mailvet.test', sequenceId, scheduledAt });
  const abuse = fake.control.scheduleEmail({ mailboxId, to: 'abuse@mailvet.test', sequenceId, scheduledAt });
  const started = Date.now();

  const found = await until(
    'two preventions',
    async () => ((await preventions()).length >= 2 ? true : undefined),
    30_000,
  );
  expect(found).toBe(true);
  expect(Date.now() - started).toBeLessThan(lookaheadMs * 2.5);

  const list = await preventions();
  expect(list).toHaveLength(2);
  const byProspect = new Map(list.map((p) => [p.prospectEmail, p]));
  expect(byProspect.get('dead@mailvet.test')).toMatchObject({
    mailbox: 'owen@acme-sales.example',
    platform: 'outreach',
    reason: 'known_dead',
    sequence: { crmSequenceId: String(sequenceId), name: 'Cold intro' },
    status: 'dead_email',
  });
  expect(byProspect.get('abuse@mailvet.test')).toMatchObject({
    status: 'do_not_mail_abuse',
    platform: 'outreach',
  });
  for (const p of list) expect(p.explanation.length).toBeGreaterThan(20);

  // on Outreach: the two sequence states paused, their mailings back to drafts; the safe one untouched
  expect(stateOf(dead.sequenceStateId)).toBe('paused');
  expect(stateOf(abuse.sequenceStateId)).toBe('paused');
  expect(stateOf(safe.sequenceStateId)).toBe('active');
  expect(mailingState(safe.mailingId)).toBe('scheduled');
  expect(mailingState(dead.mailingId)).not.toBe('scheduled');

  // the owner's prevention emails
  const mails = await until(
    'two prevention emails',
    async () => (outbox().length >= 2 ? outbox() : undefined),
    20_000,
  );
  expect(mails).toHaveLength(2);
  for (const mail of mails) {
    expect(mail.text).toMatch(/^To: owen\.owner@acme-sales\.example/m);
    expect(mail.text).toMatch(/^Subject: Safety Net: Email Prevented/m);
    expect(mail.text).toMatch(/Sending mailbox: owen@acme-sales\.example/);
    expect(mail.text).toMatch(/Prospect: (dead|abuse)@mailvet\.test/);
    expect(mail.text).toMatch(/Reason: /);
  }

  // a later look-ahead prevents nothing twice
  await new Promise((resolve) => setTimeout(resolve, lookaheadMs * 1.5));
  expect(await preventions()).toHaveLength(2);
  expect(outbox()).toHaveLength(2);
}, 90_000);

it('stops nothing while the sequence and its mailbox are off', async () => {
  await setSequence(false);
  const bounce = fake.control.scheduleEmail({ mailboxId, to: 'bounce@mailvet.test', sequenceId });
  await new Promise((resolve) => setTimeout(resolve, lookaheadMs * 2.5));
  expect(await preventions()).toHaveLength(2);
  expect(stateOf(bounce.sequenceStateId)).toBe('active');
  expect(mailingState(bounce.mailingId)).toBe('scheduled');
}, 60_000);

it('never stops an allowlisted address, whatever its case', async () => {
  expect((await api(local, 'PUT', '/v1/safety-net/allowlist/Dead+Kept@MAILVET.test')).status).toBe(204);
  expect((await api(local, 'GET', '/v1/safety-net/allowlist')).body.emails).toEqual([
    'dead+kept@mailvet.test',
  ]);
  // the member key may not manage it
  expect(
    (await api(local, 'PUT', '/v1/safety-net/allowlist/x@mailvet.test', { key: local.keys.member })).status,
  ).toBe(403);
  await setSequence(true);
  const kept = fake.control.scheduleEmail({ mailboxId, to: 'dead+kept@mailvet.test', sequenceId });
  // the bounce address of the previous test is protected again now: it is stopped, the allowlisted one is not
  await until(
    'the bounce address stopped',
    async () => ((await preventions()).length >= 3 ? true : undefined),
    30_000,
  );
  await new Promise((resolve) => setTimeout(resolve, lookaheadMs * 1.5));
  const list = await preventions();
  expect(list.map((p) => p.prospectEmail).sort()).toEqual([
    'abuse@mailvet.test',
    'bounce@mailvet.test',
    'dead@mailvet.test',
  ]);
  expect(stateOf(kept.sequenceStateId)).toBe('active');
}, 90_000);

it("takes Outreach's signed webhooks (registered on connection) and refuses a forged one", async () => {
  await fake.control.webhooksSettled();
  const delivered = fake.control.webhookDeliveries().filter((d) => d.outcome === 'delivered');
  expect(delivered.length).toBeGreaterThan(0);
  const hook = `/v1/integrations/outreach/webhooks/${local.ids.acme}`;
  expect(delivered.every((d) => d.url === `${local.baseUrl}${hook}` && d.attempts.at(-1) === 204)).toBe(true);
  const forged = await fetch(`${local.baseUrl}${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'outreach-webhook-signature': 'ab'.repeat(32) },
    body: delivered[0]!.body,
  });
  expect(forged.status).toBe(401);
  expect(await forged.json()).toEqual({ error: 'Invalid signature' });
});

it('writes no token, code or client secret to any log line', async () => {
  const connection = await readConnection(local.ids.acme, 'outreach');
  const grant = JSON.parse(await openGrant(connection!)) as { accessToken: string; refreshToken: string };
  const output = logged.join('');
  expect(output).toContain('safety net look-ahead done');
  for (const secret of [grant.accessToken, grant.refreshToken, fake.clientSecret]) {
    expect(secret.length).toBeGreaterThan(8);
    expect(output.includes(secret)).toBe(false);
  }
  expect(output).not.toMatch(/[?&]code=/);
  expect(output).not.toMatch(/Bearer /);
});
