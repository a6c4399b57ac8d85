// Users and invites against DynamoDB Local: list rules, expiry at read time, seats, 403/409, the outbox.
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent } from 'aws-lambda';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { companyKey, inviteEmailKey, userKey } from '../../functions/store/keys';
import { demoKeys } from '../../local/demo/accounts';
import { seedDemoWorkspace } from '../../local/demo/workspace';
import { getUserRoute } from '../../functions/handlers/get-user';
import { inviteUserRoute } from '../../functions/handlers/invite-user';
import { listUsersRoute } from '../../functions/handlers/list-users';
import { sendInvites } from '../../functions/handlers/send-invite';
import { resetSes } from '../../functions/clients/ses';
import { resetSettings } from '../../functions/settings';
import { readRawItem } from '../helpers/raw-items';
import { allPages, call, startWorkspaceDb, type WorkspaceDb } from './workspace-harness';

const sqsMock = mockClient(SQSClient);
const sesMock = mockClient(SESv2Client);
const start = new Date('2026-03-04T15:30:00.000Z');
let now = start;
const clock = () => now;
const list = listUsersRoute(clock);
const invite = inviteUserRoute(clock);
const detail = getUserRoute();
let db: WorkspaceDb;

beforeAll(async () => {
  db = await startWorkspaceDb();
  await seedDemoWorkspace(db.accounts, () => start);
});
afterAll(() => db.stop());
beforeEach(() => {
  now = start;
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  sesMock.reset();
  sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
});

/** Runs `act` with the settings changed, every log line it writes captured (at debug level). */
async function withSettingsAndLogs(env: Record<string, string>, act: () => Promise<void>): Promise<string[]> {
  const saved = { ...process.env };
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  Object.assign(process.env, { LOG_LEVEL: 'debug', ...env });
  resetSettings();
  try {
    await act();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.env = saved;
    resetSettings();
    resetSes();
  }
  return lines.filter((line) => line.startsWith('{'));
}
const anAddress = /[^\s"]+@[^\s"]+/;

const emails = (users: { email: string }[]) => users.map((u) => u.email);
const setSeats = (companyId: string, seats: number) =>
  dynamoDb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: companyKey(companyId),
      UpdateExpression: 'SET seats = :s',
      ExpressionAttributeValues: { ':s': seats },
    }),
  );

describe('GET /v1/users', () => {
  it('lists active users and invites sorted by email, with mailboxes and the right timestamps', async () => {
    const res = await call(list, { key: demoKeys.admin });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.body)).toEqual(['limit', 'offset', 'total', 'users']);
    expect(emails(res.body.users)).toEqual([
      'ada.admin@acme.example',
      'max.member@acme.example',
      'nina.new@acme.example',
      'otto.ops@acme.example',
      'sam.sales@acme.example',
    ]);
    const [ada, , nina, otto, sam] = res.body.users;
    expect(ada).toEqual({
      createdAt: '2026-01-05T09:00:00.000Z',
      email: 'ada.admin@acme.example',
      id: db.accounts.users[0]!.userId,
      mailboxes: [
        { email: 'ada.admin@acme.example', id: expect.any(String) },
        { email: 'ada@acme-mail.example', id: expect.any(String) },
      ],
      name: 'Ada Admin',
      role: 'admin',
      status: 'active',
    });
    expect(nina).toMatchObject({ id: null, status: 'invited', role: 'admin', mailboxes: [] });
    expect(nina.inviteExpiresAt).toBeDefined();
    expect(nina.createdAt).toBeUndefined();
    expect(otto).toMatchObject({ status: 'active', mailboxes: [] });
    expect(otto.inviteExpiresAt).toBeUndefined();
    expect(sam).toMatchObject({
      id: null,
      status: 'invited',
      mailboxes: [{ email: 'sam.sales@acme.example' }],
    });
  });

  it('filters by status with exact totals and pages with any limit', async () => {
    const active = await call(list, { key: demoKeys.admin, query: { status: 'active', limit: '1' } });
    const invited = await call(list, { key: demoKeys.admin, query: { status: 'invited', limit: '1' } });
    expect([active.body.total, invited.body.total]).toEqual([3, 2]);
    const full = await call(list, { key: demoKeys.admin });
    for (const limit of [1, 2, 4])
      expect((await allPages(list, demoKeys.admin, 'users', limit)).rows).toEqual(full.body.users);
    const bad = await call(list, { key: demoKeys.admin, query: { status: 'pending' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.error).toContain('status');
  });

  it('drops an invite the moment it expires', async () => {
    const nina = (await call(list, { key: demoKeys.admin })).body.users.find(
      (u: { email: string }) => u.email === 'nina.new@acme.example',
    );
    now = new Date(new Date(nina.inviteExpiresAt).getTime() - 1);
    expect(emails((await call(list, { key: demoKeys.admin })).body.users)).toContain('nina.new@acme.example');
    now = new Date(nina.inviteExpiresAt);
    const after = await call(list, { key: demoKeys.admin });
    // Sam's invite (5 days) expired a day earlier than Nina's (6 days).
    expect(emails(after.body.users)).toEqual([
      'ada.admin@acme.example',
      'max.member@acme.example',
      'otto.ops@acme.example',
    ]);
    expect(after.body.total).toBe(3);
  });

  it('keeps companies apart', async () => {
    const res = await call(list, { key: demoKeys.other });
    expect(emails(res.body.users)).toEqual(['gina.admin@globex.example']);
  });
});

describe('GET /v1/users/{id}', () => {
  it('returns an active user by id, including one the accounts module created', async () => {
    const res = await call(detail, {
      key: demoKeys.admin,
      pathParameters: { id: db.accounts.users[1]!.userId },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatchObject({ email: 'max.member@acme.example', status: 'active', role: 'member' });
    expect(res.body.mailboxes.map((m: { email: string }) => m.email)).toEqual([
      'max.member@acme.example',
      'max@acme-mail.example',
    ]);
    const listed = (await call(list, { key: demoKeys.admin })).body.users.find(
      (u: { email: string }) => u.email === 'max.member@acme.example',
    );
    expect(res.body).toEqual(listed);
  });

  it('answers 404 for unknown, malformed and other companies ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'null', db.accounts.users[2]!.userId]) {
      const res = await call(detail, { key: demoKeys.admin, pathParameters: { id } });
      expect(res).toMatchObject({ statusCode: 404, body: { error: 'User not found' } });
    }
  });
});

describe('POST /v1/users', () => {
  const post = (key: string, body: unknown) => call(invite, { key, method: 'POST', path: '/v1/users', body });

  it('answers 403 when the key creator may not invite, before looking at the body', async () => {
    const res = await post(demoKeys.member, { email: 'x@acme.example' });
    expect(res).toMatchObject({ statusCode: 403 });
    expect((await post(demoKeys.member, { nope: true })).statusCode).toBe(403);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it.each([
    [{}, 'email is required'],
    [{ email: 'not-an-email' }, 'email'],
    [{ email: 'a@acme.example', role: 'owner' }, 'role'],
    [{ email: 'a@acme.example', name: 7 }, 'name'],
    [[], 'Body'],
    ['"text"', 'Body'],
  ])('answers 400 for %j', async (body, message) => {
    const res = await post(demoKeys.admin, body);
    expect(res.statusCode).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('answers 400 for a malformed JSON body', async () => {
    const res = await post(demoKeys.admin, '{nope');
    expect(res).toMatchObject({ statusCode: 400, body: { error: 'Invalid JSON body' } });
  });

  it('invites with role member by default: 201, listed as invited, outbox record and queue message', async () => {
    let message = { companyId: '', outboxId: '' };
    const lines = await withSettingsAndLogs({ INVITE_FROM: 'invites@acme-mail.io' }, async () => {
      const res = await post(demoKeys.admin, { email: 'New.Person@Acme.example', name: 'New Person' });
      expect(res.statusCode).toBe(201);
      expect(res.body).toEqual({
        email: 'new.person@acme.example',
        id: null,
        inviteExpiresAt: '2026-03-11T15:30:00.000Z',
        mailboxes: [],
        name: 'New Person',
        role: 'member',
        status: 'invited',
      });
      const listed = await call(list, { key: demoKeys.admin, query: { status: 'invited' } });
      expect(listed.body.users).toContainEqual(res.body);
      const sends = sqsMock.commandCalls(SendMessageCommand);
      expect(sends).toHaveLength(1);
      message = JSON.parse(sends[0]!.args[0].input.MessageBody!);
      expect(message.companyId).toBe(db.accounts.acmeId);
      const record = await readRawItem(inviteEmailKey(db.accounts.acmeId, message.outboxId));
      expect(record).toMatchObject({
        to: 'new.person@acme.example',
        status: 'pending',
        invitedBy: 'ada.admin@acme.example',
      });

      // send-invite emails it through SES from INVITE_FROM and marks it sent, once.
      const event = { Records: [{ messageId: 'm-1', body: JSON.stringify(message) }] } as unknown as SQSEvent;
      expect(await sendInvites(event, clock)).toEqual({ batchItemFailures: [] });
      expect(await readRawItem(inviteEmailKey(db.accounts.acmeId, message.outboxId))).toMatchObject({
        status: 'sent',
      });
      expect(await sendInvites(event, clock)).toEqual({ batchItemFailures: [] });
      const emails = sesMock.commandCalls(SendEmailCommand).map((c) => c.args[0].input);
      expect(emails).toHaveLength(1);
      expect(emails[0]).toMatchObject({
        FromEmailAddress: 'invites@acme-mail.io',
        Destination: { ToAddresses: ['new.person@acme.example'] },
      });
      expect(emails[0]!.Content?.Simple?.Body?.Text?.Data).toContain('ada.admin@acme.example invited you');
    });
    // The invite path logged (the request, the send), and no line carries an address.
    expect(lines.some((line) => line.includes('invite email sent'))).toBe(true);
    expect(lines.some((line) => line.includes('request done'))).toBe(true);
    for (const line of lines) expect(line).not.toMatch(anAddress);
    expect(lines.join('')).toContain(message.outboxId);
  });

  it('keeps an invite pending without a mail transport (no inviteFrom), and a refusal by SES is retried', async () => {
    const res = await post(demoKeys.admin, { email: 'pending.person@acme.example' });
    expect(res.statusCode).toBe(201);
    const body = sqsMock.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!;
    const { outboxId } = JSON.parse(body) as { outboxId: string };
    const event = { Records: [{ messageId: 'm-2', body }] } as unknown as SQSEvent;

    const lines = await withSettingsAndLogs({}, async () => {
      expect(await sendInvites(event, clock)).toEqual({ batchItemFailures: [] });
    });
    expect(await readRawItem(inviteEmailKey(db.accounts.acmeId, outboxId))).toMatchObject({
      status: 'pending',
    });
    expect(sesMock.commandCalls(SendEmailCommand)).toHaveLength(0);
    expect(lines.some((line) => line.includes('stays pending'))).toBe(true);

    sesMock
      .on(SendEmailCommand)
      .rejects(
        new Error(
          'Email address is not verified. The following identities failed the check in region US-EAST-1: ' +
            'invites@acme-mail.io, pending.person@acme.example',
        ),
      );
    const refused = await withSettingsAndLogs({ INVITE_FROM: 'invites@acme-mail.io' }, async () => {
      expect(await sendInvites(event, clock)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    });
    expect(await readRawItem(inviteEmailKey(db.accounts.acmeId, outboxId))).toMatchObject({
      status: 'pending',
    });
    for (const line of refused) expect(line).not.toMatch(anAddress);
  });

  it('refreshes an existing invite with 200 and no second seat; an invitee with mailboxes keeps them', async () => {
    const before = (await call(list, { key: demoKeys.admin })).body.total;
    now = new Date('2026-03-05T10:00:00.000Z');
    const res = await post(demoKeys.admin, { email: 'sam.sales@acme.example', role: 'admin' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatchObject({
      role: 'admin',
      name: 'Sam Sales',
      inviteExpiresAt: '2026-03-12T10:00:00.000Z',
    });
    expect(res.body.mailboxes).toEqual([{ email: 'sam.sales@acme.example', id: expect.any(String) }]);
    expect((await call(list, { key: demoKeys.admin })).body.total).toBe(before);
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(1);
  });

  it('answers 409 for an active user email', async () => {
    const res = await post(demoKeys.admin, { email: 'OTTO.ops@acme.example' });
    expect(res).toMatchObject({ statusCode: 409 });
    expect(res.body.error).toMatch(/active/);
  });

  it('answers 409 without a free seat, and an expired invite frees its seat', async () => {
    const other = db.accounts.globexId;
    await setSeats(other, 2);
    const post2 = (email: string) => call(invite, { key: demoKeys.other, method: 'POST', body: { email } });
    expect((await post2('g1@globex.example')).statusCode).toBe(201); // seats: gina + g1
    const full = await post2('g2@globex.example');
    expect(full).toMatchObject({ statusCode: 409, body: { error: 'No free seats' } });
    expect(await readRawItem(userKey(other, 'g2@globex.example'))).toBeUndefined();
    now = new Date(start.getTime() + 7 * 86_400_000); // g1's invite has just expired
    expect((await post2('g2@globex.example')).statusCode).toBe(201);
    // Re-inviting the expired g1 needs a seat again: none left.
    expect((await post2('g1@globex.example')).statusCode).toBe(409);
    await setSeats(other, 10);
  });

  it('never hands out more seats than the company has, however many invites race', async () => {
    const other = db.accounts.globexId;
    now = new Date('2026-06-01T00:00:00.000Z'); // earlier Globex invites have expired: only Gina holds a seat
    await setSeats(other, 4);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(invite, { key: demoKeys.other, method: 'POST', body: { email: `race${i}@globex.example` } }),
      ),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(codes.filter((c) => c !== 201).every((c) => c === 409)).toBe(true);
    const users = await call(list, { key: demoKeys.other });
    expect(users.body.total).toBe(4);
    await setSeats(other, 10);
  });
});
