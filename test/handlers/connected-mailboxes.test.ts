// POST and DELETE /v1/connected-mailboxes through the real API adapter on DynamoDB Local, for what needs
// no mail server: who may call them, bad bodies and hosts (400, nothing stored), an address already
// connected (409), unknown ids (404); and the placement queues' consumers on records that cannot or
// need not be worked. The logins themselves: test/integration/mailboxes-*.test.ts against real servers.
import type { SQSEvent } from 'aws-lambda';
import { resetSettings } from '../../functions/settings';
import { logger } from '../../functions/log';
import { mailServers } from '../../functions/clients/mail-servers';
import { connectMailboxRoute } from '../../functions/handlers/connect-mailbox';
import { disconnectMailboxRoute } from '../../functions/handlers/disconnect-mailbox';
import { listConnectedMailboxesRoute } from '../../functions/handlers/list-connected-mailboxes';
import { listConnectedDomainsRoute } from '../../functions/handlers/list-connected-domains';
import { consumeSends } from '../../functions/handlers/send-placement-tests';
import { consumeChecks } from '../../functions/handlers/check-placement';
import { startDay } from '../../functions/handlers/start-placement-day';
import { mailboxServerFunctions } from '../../functions/wiring/mailboxes';
import { adminOnlyMessage } from '../../functions/domain/mailboxes/connect';
import { demoKeys } from '../../local/demo/accounts';
import { seedDemoWorkspace } from '../../local/demo/workspace';
import { call, startWorkspaceDb, type WorkspaceDb } from '../integration/workspace-harness';

const now = new Date('2026-03-04T15:30:00.000Z');
const clock = () => now;
const connect = connectMailboxRoute(mailServers, clock);
const disconnect = disconnectMailboxRoute(clock);
const list = listConnectedMailboxesRoute(clock);
let db: WorkspaceDb;

const server = (host: string, port: number) => ({
  host,
  port,
  security: 'tls' as const,
  username: 'ada@alpha.test',
  password: 'correct horse battery staple',
});
const body = (overrides: Record<string, unknown> = {}) => ({
  email: 'ada@alpha.test',
  imap: server('127.0.37.250', 1),
  smtp: server('127.0.37.250', 2),
  ...overrides,
});
const post = (key: string, payload: unknown) =>
  call(connect, { key, method: 'POST', path: '/v1/connected-mailboxes', body: payload });
const total = async () => (await call(list, { key: demoKeys.admin })).body.total as number;

beforeAll(async () => {
  db = await startWorkspaceDb();
  await seedDemoWorkspace(db.accounts, clock);
});
afterAll(() => db.stop());
afterEach(() => {
  delete process.env.ALLOW_PRIVATE_MX;
  resetSettings();
});

describe('POST /v1/connected-mailboxes', () => {
  it("refuses a member's key with 403 before reading the body", async () => {
    const res = await post(demoKeys.member, []);
    expect(res.statusCode).toBe(403);
    expect(res.body).toEqual({ error: adminOnlyMessage });
  });

  it.each([
    ['a body that is not an object', [], 'Body must be a JSON object'],
    ['no email', { ...body(), email: undefined }, 'email is required'],
    ['a bad email', body({ email: 'ada-at-alpha' }), 'email must be a valid email address'],
    [
      'no imap',
      body({ imap: undefined }),
      'imap must be an object with host, port, security, username and password',
    ],
    [
      'a bad port',
      body({ imap: { ...server('imap.alpha.test', 0) } }),
      'imap.port must be a port number (1-65535)',
    ],
    [
      'a bad security',
      body({ smtp: { ...server('smtp.alpha.test', 587), security: 'ssl' } }),
      'smtp.security must be tls or starttls',
    ],
    [
      'no password',
      body({ smtp: { ...server('smtp.alpha.test', 587), password: '' } }),
      'smtp.password is required',
    ],
    [
      'a host with a path',
      body({ imap: server('imap.alpha.test/x', 993) }),
      'imap.host must be a host name or an address',
    ],
  ])('answers 400 for %s, naming the field, and stores nothing', async (_name, payload, error) => {
    const before = await total();
    const res = await post(demoKeys.admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({ error });
    expect(res.raw).not.toContain('correct horse');
    expect(await total()).toBe(before);
  });

  it('refuses loopback and private hosts unless ALLOW_PRIVATE_MX=true', async () => {
    const res = await post(demoKeys.admin, body());
    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({
      error: 'IMAP server 127.0.37.250:1 unreachable: 127.0.37.250 is not on a public network',
    });
  });

  it('answers 400 naming an unreachable host, and stores nothing', async () => {
    process.env.ALLOW_PRIVATE_MX = 'true';
    resetSettings();
    const before = await total();
    const res = await post(demoKeys.admin, body());
    expect(res.statusCode).toBe(400);
    expect(res.body).toEqual({ error: 'IMAP server 127.0.37.250:1 unreachable: connection refused' });
    const smtpOnly = await post(demoKeys.admin, body({ imap: server('no-such-host.invalid', 993) }));
    expect(smtpOnly.statusCode).toBe(400);
    expect(smtpOnly.body).toEqual({
      error: 'IMAP server no-such-host.invalid:993 unreachable: no such host',
    });
    expect(await total()).toBe(before);
  });

  it('answers 409 for an address already connected, before any login', async () => {
    const existing = (await call(list, { key: demoKeys.admin })).body.mailboxes[0].email as string;
    const res = await post(demoKeys.admin, body({ email: existing.toUpperCase() }));
    expect(res.statusCode).toBe(409);
    expect(res.body).toEqual({ error: 'This mailbox is already connected' });
  });
});

describe('DELETE /v1/connected-mailboxes/{id}', () => {
  const del = (key: string, id: string) =>
    call(disconnect, {
      key,
      method: 'DELETE',
      path: `/v1/connected-mailboxes/${id}`,
      pathParameters: { id },
    });

  it("refuses a member's key with 403", async () => {
    const id = (await call(list, { key: demoKeys.admin })).body.mailboxes[0].id as string;
    const res = await del(demoKeys.member, id);
    expect(res.statusCode).toBe(403);
    expect(res.body).toEqual({ error: adminOnlyMessage });
  });

  it("answers 404 for an unknown id, a non-UUID and another company's mailbox", async () => {
    const acmeId = (await call(list, { key: demoKeys.admin })).body.mailboxes[0].id as string;
    for (const [key, id] of [
      [demoKeys.admin, '5d6a2a43-3c61-4d7e-9b1e-6f0d8c2b9a10'],
      [demoKeys.admin, 'not-a-uuid'],
      [demoKeys.other, acmeId],
    ] as const) {
      const res = await del(key, id);
      expect(res.statusCode).toBe(404);
      expect(res.body).toEqual({ error: 'Connected mailbox not found' });
    }
  });

  it('disconnects an imported mailbox: 204, gone from the list and its domain recounted', async () => {
    const domains = listConnectedDomainsRoute();
    const countOf = async (domain: string) =>
      (
        (await call(domains, { key: demoKeys.admin })).body.domains as {
          domain: string;
          mailboxCount: number;
        }[]
      ).find((d) => d.domain === domain)?.mailboxCount ?? 0;
    const before = (await call(list, { key: demoKeys.admin })).body;
    const victim = before.mailboxes[0] as { id: string; email: string; domain: string };
    const count = await countOf(victim.domain);
    expect(count).toBeGreaterThan(0);
    expect((await del(demoKeys.admin, victim.id)).statusCode).toBe(204);
    expect(await countOf(victim.domain)).toBe(count - 1);
    const after = (await call(list, { key: demoKeys.admin })).body;
    expect(after.total).toBe(before.total - 1);
    expect(after.mailboxes.map((m: { id: string }) => m.id)).not.toContain(victim.id);
    expect((await del(demoKeys.admin, victim.id)).statusCode).toBe(404);
  });
});

describe('the placement queues', () => {
  const event = (...bodies: string[]): SQSEvent =>
    ({
      Records: bodies.map((body, i) => ({
        messageId: `m${i}`,
        receiptHandle: `r${i}`,
        body,
        attributes: {},
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:mailvet-placement',
        awsRegion: 'us-east-1',
      })),
    }) as unknown as SQSEvent;
  const gone = { companyId: 'c', mailboxId: '5d6a2a43-3c61-4d7e-9b1e-6f0d8c2b9a10', day: '2026-03-04' };

  it('starts a day with nobody in the network (no mailbox has credentials: imported and demo ones never get tests)', async () => {
    expect(await startDay({ schedule: 'placementDaily', time: '2026-03-04T06:00:00.000Z' }, logger)).toEqual({
      day: '2026-03-04',
      mailboxes: 0,
    });
    expect(mailboxServerFunctions).toEqual(['connectMailbox', 'sendPlacementTests', 'checkPlacement']);
  });

  it('acknowledges a send for a mailbox that is gone, and drops an unreadable record', async () => {
    const out = await consumeSends(
      event(JSON.stringify({ ...gone, recipients: [] }), '{"day":"x"}'),
      mailServers,
      clock,
    );
    expect(out.batchItemFailures).toEqual([]);
  });

  it('acknowledges a reading for a mailbox that is gone, and drops an unreadable record', async () => {
    const out = await consumeChecks(
      event(JSON.stringify({ ...gone, attempt: 1 }), 'not json'),
      mailServers,
      clock,
    );
    expect(out.batchItemFailures).toEqual([]);
  });
});
