// Connected mailboxes and domains against DynamoDB Local: lists, windows, paging, details, isolation.
import { demoKeys } from '../../local/demo/accounts';
import { createCompany } from '../../functions/domain/accounts/accounts';
import { seedDemoWorkspace } from '../../local/demo/workspace';
import { importWorkspace } from '../../functions/domain/workspace/import';
import { getConnectedDomainRoute } from '../../functions/handlers/get-connected-domain';
import { getConnectedMailboxRoute } from '../../functions/handlers/get-connected-mailbox';
import { listConnectedDomainsRoute } from '../../functions/handlers/list-connected-domains';
import { listConnectedMailboxesRoute } from '../../functions/handlers/list-connected-mailboxes';
import { usageKey } from '../../functions/store/keys';
import { createApiKey } from '../../functions/domain/accounts/accounts';
import { putAccountUser } from '../../functions/domain/accounts/accounts';
import { addDays, datesBetween } from '../../functions/domain/workspace/dates';
import { readRawItem } from '../helpers/raw-items';
import { allPages, call, startWorkspaceDb, type WorkspaceDb } from './workspace-harness';

const now = new Date('2026-03-04T15:30:00.000Z'); // a Wednesday
const clock = () => now;
const list = listConnectedMailboxesRoute(clock);
const detail = getConnectedMailboxRoute(clock);
let db: WorkspaceDb;

beforeAll(async () => {
  db = await startWorkspaceDb();
  await seedDemoWorkspace(db.accounts, () => now);
});
afterAll(() => db.stop());

describe('GET /v1/connected-mailboxes', () => {
  it('lists the demo mailboxes sorted by email with the fixed envelope and defaults', async () => {
    const res = await call(list, { key: demoKeys.admin });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.body)).toEqual(['limit', 'mailboxes', 'offset', 'reputationRange', 'total']);
    expect(res.body).toMatchObject({ limit: 50, offset: 0, total: 5 });
    expect(res.body.reputationRange).toEqual({
      endDate: '2026-03-04',
      name: 'last30Days',
      startDate: '2026-02-03',
    });
    const emails = res.body.mailboxes.map((m: { email: string }) => m.email);
    expect(emails).toEqual([...emails].sort());
    expect(Object.keys(res.body.mailboxes[0])).toEqual([
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
    const sam = res.body.mailboxes.find((m: { email: string }) => m.email === 'sam.sales@acme.example');
    expect(sam.reputation).toBeNull();
  });
});

describe('paging and filters', () => {
  it.each([1, 2, 3, 4, 1000])('reconstructs the full list with limit=%i', async (limit) => {
    const full = await call(list, { key: demoKeys.admin, query: { limit: '1000' } });
    const paged = await allPages(list, demoKeys.admin, 'mailboxes', limit);
    expect(paged.total).toBe(full.body.total);
    expect(paged.rows).toEqual(full.body.mailboxes);
  });

  it('filters by connectionStatus with an exact total', async () => {
    const all = (await call(list, { key: demoKeys.admin })).body.mailboxes as { connectionStatus: string }[];
    for (const status of ['connected', 'credentials_error']) {
      const res = await call(list, { key: demoKeys.admin, query: { connectionStatus: status, limit: '1' } });
      expect(res.body.total).toBe(all.filter((m) => m.connectionStatus === status).length);
      expect(res.body.mailboxes).toHaveLength(1);
      expect(res.body.mailboxes[0].connectionStatus).toBe(status);
    }
  });

  it('answers an empty page past the end, with the total and the echoed offset', async () => {
    const res = await call(list, { key: demoKeys.admin, query: { offset: '99' } });
    expect(res.body).toMatchObject({ offset: 99, total: 5, mailboxes: [] });
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ offset: 'x' }, 'offset'],
    [{ reputationRange: 'last90Days' }, 'reputationRange'],
    [{ connectionStatus: 'disconnected' }, 'connectionStatus'],
  ])('answers 400 naming the parameter for %j', async (query, name) => {
    const res = await call(list, { key: demoKeys.admin, query });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toContain(name);
  });

  it('keeps companies apart', async () => {
    const res = await call(list, { key: demoKeys.other });
    expect(res.body.total).toBe(1);
    expect(res.body.mailboxes[0].email).toBe('gina.admin@globex.example');
  });
});

describe('reputation windows', () => {
  // A company whose one mailbox has a known value every day: the value is the day of the month.
  const edgeCompany = 'e00e0000-0000-4000-8000-00000000e001';
  const edgeKey = 'edge-test-key';
  const first = '2023-12-01';
  const last = '2026-03-31';
  const valueOf = (date: string) => Number(date.slice(8, 10));
  const expectedMean = (start: string, end: string) => {
    const days = datesBetween(start, end).filter((d) => d >= first && d <= last);
    return days.length ? Math.round(days.reduce((s, d) => s + valueOf(d), 0) / days.length) : null;
  };

  beforeAll(async () => {
    await createCompany({ companyId: edgeCompany, name: 'Edge', seats: 5 });
    const user = {
      companyId: edgeCompany,
      userId: 'e00e0000-0000-4000-8000-0000000000e1',
      email: 'e@edge.example',
      name: 'E',
      role: 'admin' as const,
      permissions: { inviteUsers: true, toggleSequences: true },
    };
    await putAccountUser(user);
    await createApiKey({
      companyId: edgeCompany,
      userId: user.userId,
      userEmail: user.email,
      name: 't',
      rawKey: edgeKey,
    });
    await importWorkspace({
      companyId: edgeCompany,
      connectedMailboxes: [
        {
          email: 'e@edge.example',
          provider: 'google',
          connectionStatus: 'connected',
          connectedAt: '2023-11-20T00:00:00Z',
          owner: { email: 'e@edge.example', firstName: 'E', lastName: 'Dge' },
          reputation: Object.fromEntries(datesBetween(first, last).map((d) => [d, valueOf(d)])),
        },
      ],
    });
  });

  const cases: [string, string, string, string][] = [
    // clock date, range, expected start, expected end
    ['2026-03-02', 'thisWeek', '2026-03-02', '2026-03-02'], // Monday: the week starts today
    ['2026-03-08', 'thisWeek', '2026-03-02', '2026-03-08'], // Sunday: still the same week
    ['2026-03-02', 'lastWeek', '2026-02-23', '2026-03-01'],
    ['2026-03-08', 'lastWeek', '2026-02-23', '2026-03-01'],
    ['2026-03-09', 'lastWeek', '2026-03-02', '2026-03-08'],
    ['2026-03-01', 'thisMonth', '2026-03-01', '2026-03-01'],
    ['2026-03-31', 'thisMonth', '2026-03-01', '2026-03-31'],
    ['2026-03-01', 'lastMonth', '2026-02-01', '2026-02-28'],
    ['2024-03-15', 'lastMonth', '2024-02-01', '2024-02-29'], // leap year
    ['2026-01-10', 'lastMonth', '2025-12-01', '2025-12-31'], // across the year
    ['2026-01-03', 'last7Days', '2025-12-28', '2026-01-03'], // two yearly blocks
    ['2026-03-04', 'last30Days', '2026-02-03', '2026-03-04'],
    ['2026-03-04', 'today', '2026-03-04', '2026-03-04'],
    ['2026-03-01', 'yesterday', '2026-02-28', '2026-02-28'],
    ['2026-04-02', 'last7Days', '2026-03-27', '2026-04-02'], // partly after the data ends
    ['2026-05-01', 'today', '2026-05-01', '2026-05-01'], // no data: null
  ];

  it.each(cases)(
    'on %s, %s is %s..%s and averages the days in it',
    async (today, name, startDate, endDate) => {
      const at = new Date(`${today}T23:59:59.999Z`);
      const res = await call(
        listConnectedMailboxesRoute(() => at),
        { key: edgeKey, query: { reputationRange: name } },
      );
      expect(res.statusCode).toBe(200);
      expect(res.body.reputationRange).toEqual({ endDate, name, startDate });
      expect(res.body.mailboxes[0].reputation).toBe(expectedMean(startDate, endDate));
    },
  );

  it('treats the clock in UTC: just after midnight UTC is already the next day', async () => {
    const at = new Date('2026-03-05T00:00:01.000Z');
    const res = await call(
      listConnectedMailboxesRoute(() => at),
      { key: edgeKey, query: { reputationRange: 'today' } },
    );
    expect(res.body.reputationRange.startDate).toBe('2026-03-05');
    expect(res.body.mailboxes[0].reputation).toBe(5);
  });

  it('serves history windows across years with one point per day', async () => {
    const at = new Date('2026-01-15T12:00:00Z');
    const id = (
      await call(
        listConnectedMailboxesRoute(() => at),
        { key: edgeKey },
      )
    ).body.mailboxes[0].id;
    const res = await call(
      getConnectedMailboxRoute(() => at),
      {
        key: edgeKey,
        pathParameters: { id },
        query: { startDate: '2023-11-29', endDate: '2024-01-02' },
      },
    );
    expect(res.statusCode).toBe(200);
    expect(res.body.history).toHaveLength(35);
    expect(res.body.history.slice(0, 3)).toEqual([
      { date: '2023-11-29', reputation: null },
      { date: '2023-11-30', reputation: null },
      { date: '2023-12-01', reputation: 1 },
    ]);
    expect(res.body.history[34]).toEqual({ date: '2024-01-02', reputation: 2 });
    expect(res.body.currentReputation).toBe(31);
  });
});

describe('GET /v1/connected-mailboxes/{id}', () => {
  const idOf = async (email: string, key: string = demoKeys.admin) =>
    ((await call(list, { key })).body.mailboxes as { email: string; id: string }[]).find(
      (m) => m.email === email,
    )!.id;

  it('defaults to the 90 days ending today, ascending, with the current reputation', async () => {
    const id = await idOf('ada.admin@acme.example');
    const res = await call(detail, { key: demoKeys.admin, pathParameters: { id } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatchObject({
      id,
      email: 'ada.admin@acme.example',
      startDate: addDays('2026-03-04', -89),
      endDate: '2026-03-04',
    });
    expect(res.body.history).toHaveLength(90);
    expect(res.body.history[0].date).toBe('2025-12-05');
    expect(res.body.history[89].date).toBe('2026-03-04');
    expect(res.body.currentReputation).toBe(res.body.history[89].reputation);
    expect(typeof res.body.currentReputation).toBe('number');
  });

  it('gives a fresh mailbox null reputation throughout', async () => {
    const res = await call(detail, {
      key: demoKeys.admin,
      pathParameters: { id: await idOf('sam.sales@acme.example') },
    });
    expect(res.body.currentReputation).toBeNull();
    expect(res.body.history.every((p: { reputation: unknown }) => p.reputation === null)).toBe(true);
  });

  it('takes an explicit window and an endDate alone', async () => {
    const id = await idOf('ada.admin@acme.example');
    const one = await call(detail, {
      key: demoKeys.admin,
      pathParameters: { id },
      query: { startDate: '2026-03-01', endDate: '2026-03-01' },
    });
    expect(one.body.history).toHaveLength(1);
    const endOnly = await call(detail, {
      key: demoKeys.admin,
      pathParameters: { id },
      query: { endDate: '2026-01-31' },
    });
    expect(endOnly.body.startDate).toBe('2025-11-03');
    expect(endOnly.body.history).toHaveLength(90);
  });

  it.each([
    [{ startDate: '2026-03-05', endDate: '2026-03-04' }, 'startDate'],
    [{ startDate: '2026-02-30' }, 'startDate'],
    [{ endDate: '20260301' }, 'endDate'],
    [{ startDate: '2026-3-1' }, 'startDate'],
  ])('answers 400 for %j', async (query, name) => {
    const id = await idOf('ada.admin@acme.example');
    const res = await call(detail, { key: demoKeys.admin, pathParameters: { id }, query });
    expect(res.statusCode).toBe(400);
    expect(res.body.error).toContain(name);
  });

  it('answers 404 for unknown ids, malformed ids and other companies ids', async () => {
    const globexId = await idOf('gina.admin@globex.example', demoKeys.other);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', globexId]) {
      const res = await call(detail, { key: demoKeys.admin, pathParameters: { id } });
      expect(res.statusCode).toBe(404);
      expect(res.body).toEqual({ error: 'Connected mailbox not found' });
    }
  });
});

describe('connected domains', () => {
  const domains = listConnectedDomainsRoute();
  const domainDetail = getConnectedDomainRoute(clock);

  it('lists domains sorted with their connected mailbox counts', async () => {
    const res = await call(domains, { key: demoKeys.admin });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.body)).toEqual(['domains', 'limit', 'offset', 'total']);
    expect(
      res.body.domains.map((d: { domain: string; mailboxCount: number }) => [d.domain, d.mailboxCount]),
    ).toEqual([
      ['acme-mail.example', 2],
      ['acme.example', 3],
    ]);
    const paged = await allPages(domains, demoKeys.admin, 'domains', 1);
    expect(paged.rows).toEqual(res.body.domains);
  });

  it('averages the mailboxes of the domain each day (rounded) and counts them', async () => {
    const mailboxes = (await call(list, { key: demoKeys.admin })).body.mailboxes as {
      domain: string;
      id: string;
    }[];
    const members = mailboxes.filter((m) => m.domain === 'acme-mail.example');
    const window = { startDate: '2026-01-01', endDate: '2026-03-04' };
    const histories = await Promise.all(
      members.map(
        async (m) =>
          (await call(detail, { key: demoKeys.admin, pathParameters: { id: m.id }, query: window })).body
            .history,
      ),
    );
    const res = await call(domainDetail, {
      key: demoKeys.admin,
      pathParameters: { domainName: 'acme-mail.example' },
      query: window,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.mailboxCount).toBe(2);
    res.body.history.forEach((point: { date: string; reputation: number | null }, i: number) => {
      const values = histories
        .map((h) => h[i].reputation)
        .filter((v: number | null) => v !== null) as number[];
      const expected = values.length ? Math.round(values.reduce((a, b) => a + b, 0) / values.length) : null;
      expect(point).toEqual({ date: histories[0][i].date, reputation: expected });
    });
    const listed = (await call(domains, { key: demoKeys.admin })).body.domains.find(
      (d: { domain: string }) => d.domain === 'acme-mail.example',
    );
    expect(listed.currentReputation).toBe(res.body.currentReputation);
  });

  it('answers 404 for unknown and other companies domains, 400 for bad windows', async () => {
    expect(
      (await call(domainDetail, { key: demoKeys.admin, pathParameters: { domainName: 'globex.example' } }))
        .statusCode,
    ).toBe(404);
    expect(
      (await call(domainDetail, { key: demoKeys.other, pathParameters: { domainName: 'globex.example' } }))
        .statusCode,
    ).toBe(200);
    const bad = await call(domainDetail, {
      key: demoKeys.admin,
      pathParameters: { domainName: 'acme.example' },
      query: { startDate: 'x' },
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('usage', () => {
  it('never counts workspace reads against validation usage', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const before = await readRawItem(usageKey(db.accounts.acmeId, month));
    await call(list, { key: demoKeys.admin });
    await call(listConnectedDomainsRoute(), { key: demoKeys.admin });
    expect(await readRawItem(usageKey(db.accounts.acmeId, month))).toEqual(before);
  });
});
