// Safety Net mailboxes and sequences against DynamoDB Local: lists, filters, details, PATCH rules, and
// that no workspace endpoint touches validation usage.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { demoKeys } from '../../local/demo/accounts';
import { seedDemoWorkspace } from '../../local/demo/workspace';
import { importWorkspace } from '../../functions/domain/workspace/import';
import { safetyNetSequenceKey, usageKey } from '../../functions/store/keys';
import { getConnectedDomainRoute } from '../../functions/handlers/get-connected-domain';
import { getConnectedMailboxRoute } from '../../functions/handlers/get-connected-mailbox';
import { getSafetyNetMailboxRoute } from '../../functions/handlers/get-safety-net-mailbox';
import { getSafetyNetSequenceRoute } from '../../functions/handlers/get-safety-net-sequence';
import { getUserRoute } from '../../functions/handlers/get-user';
import { inviteUserRoute } from '../../functions/handlers/invite-user';
import { listConnectedDomainsRoute } from '../../functions/handlers/list-connected-domains';
import { listConnectedMailboxesRoute } from '../../functions/handlers/list-connected-mailboxes';
import { listSafetyNetMailboxesRoute } from '../../functions/handlers/list-safety-net-mailboxes';
import { listSafetyNetSequencesRoute } from '../../functions/handlers/list-safety-net-sequences';
import { listUsersRoute } from '../../functions/handlers/list-users';
import { patchSafetyNetMailboxRoute } from '../../functions/handlers/patch-safety-net-mailbox';
import { patchSafetyNetSequenceRoute } from '../../functions/handlers/patch-safety-net-sequence';
import { readRawItem } from '../helpers/raw-items';
import { allPages, call, startWorkspaceDb, type WorkspaceDb } from './workspace-harness';

const sqsMock = mockClient(SQSClient);
const now = new Date('2026-03-04T15:30:00.000Z');
const clock = () => now;
const mailboxes = listSafetyNetMailboxesRoute();
const mailbox = getSafetyNetMailboxRoute();
const patchMailbox = patchSafetyNetMailboxRoute(clock);
const sequences = listSafetyNetSequencesRoute();
const sequence = getSafetyNetSequenceRoute();
const patchSequence = patchSafetyNetSequenceRoute(clock);
let db: WorkspaceDb;

type Seq = {
  id: string;
  name: string;
  crmSequenceId: string;
  service: string;
  activated: boolean;
  owner: { email: string };
};
type SnMailbox = { id: string; email: string; activated: boolean; integrations: { service: string }[] };

beforeAll(async () => {
  db = await startWorkspaceDb();
  await seedDemoWorkspace(db.accounts, () => now);
});
afterAll(() => db.stop());
beforeEach(() => {
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' });
});

const allSequences = async (key: string = demoKeys.admin): Promise<Seq[]> =>
  (await allPages(sequences, key, 'sequences', 1000)).rows as Seq[];
const allMailboxes = async (key: string = demoKeys.admin): Promise<SnMailbox[]> =>
  (await call(mailboxes, { key, query: { limit: '1000' } })).body.mailboxes;

describe('GET /v1/safety-net-mailboxes', () => {
  it('lists one entry per email, sorted, with its integrations', async () => {
    const res = await call(mailboxes, { key: demoKeys.admin });
    expect(Object.keys(res.body)).toEqual(['limit', 'mailboxes', 'offset', 'total']);
    expect(res.body.total).toBe(4);
    const list = res.body.mailboxes as SnMailbox[];
    expect(list.map((m) => m.email)).toEqual([...list.map((m) => m.email)].sort());
    expect(Object.keys(list[0]!)).toEqual(['activated', 'email', 'id', 'integrations']);
    const ada = list.find((m) => m.email === 'ada.admin@acme.example')!;
    expect(ada.integrations.map((i) => i.service)).toEqual(['outreach', 'salesloft']);
  });

  it('merges case variants of one email into one entry', async () => {
    await importWorkspace({
      companyId: db.accounts.acmeId,
      safetyNetMailboxes: [
        { email: 'Rita.Rep@ACME.example', integrations: [{ service: 'outreach', externalId: 'or-9' }] },
      ],
    });
    const rita = (await allMailboxes()).filter((m) => m.email === 'rita.rep@acme.example');
    expect(rita).toHaveLength(1);
    expect(rita[0]!.integrations.map((i) => i.service)).toEqual(['outreach', 'salesloft']);
    expect(rita[0]!.activated).toBe(true);
  });

  it('filters by activated with exact totals, pages with any limit, 400s on bad values', async () => {
    const all = await allMailboxes();
    for (const value of [true, false]) {
      const res = await call(mailboxes, {
        key: demoKeys.admin,
        query: { activated: String(value), limit: '1' },
      });
      expect(res.body.total).toBe(all.filter((m) => m.activated === value).length);
    }
    for (const limit of [1, 3])
      expect((await allPages(mailboxes, demoKeys.admin, 'mailboxes', limit)).rows).toEqual(all);
    const bad = await call(mailboxes, { key: demoKeys.admin, query: { activated: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.error).toContain('activated');
  });

  it('keeps companies apart and answers 404 for another company id', async () => {
    const globex = await allMailboxes(demoKeys.other);
    expect(globex.map((m) => m.email)).toEqual(['gina.admin@globex.example']);
    const res = await call(mailbox, { key: demoKeys.admin, pathParameters: { id: globex[0]!.id } });
    expect(res).toMatchObject({ statusCode: 404, body: { error: 'Safety Net mailbox not found' } });
    const patch = await call(patchMailbox, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id: globex[0]!.id },
      body: { activated: false },
    });
    expect(patch.statusCode).toBe(404);
    expect((await allMailboxes(demoKeys.other))[0]!.activated).toBe(true);
  });
});

describe('PATCH /v1/safety-net-mailboxes/{id}', () => {
  it('needs no permission, answers 200 with the item, and is idempotent', async () => {
    const max = (await allMailboxes()).find((m) => m.email === 'max.member@acme.example')!;
    expect(max.activated).toBe(false);
    const first = await call(patchMailbox, {
      key: demoKeys.member,
      method: 'PATCH',
      pathParameters: { id: max.id },
      body: { activated: true },
    });
    expect(first).toMatchObject({ statusCode: 200, body: { ...max, activated: true } });
    const again = await call(patchMailbox, {
      key: demoKeys.member,
      method: 'PATCH',
      pathParameters: { id: max.id },
      body: { activated: true },
    });
    expect(again.body).toEqual(first.body);
    expect((await call(mailbox, { key: demoKeys.admin, pathParameters: { id: max.id } })).body).toEqual(
      first.body,
    );
    expect((await allMailboxes()).find((m) => m.id === max.id)).toEqual(first.body);
    const off = await call(patchMailbox, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id: max.id },
      body: { activated: false },
    });
    expect(off.body.activated).toBe(false);
  });

  it.each([
    [{}],
    [{ activated: 'true' }],
    [{ activated: true, extra: 1 }],
    [{ activated: null }],
    [[true]],
    ['true'],
  ])('answers 400 for the body %j', async (body) => {
    const id = (await allMailboxes())[0]!.id;
    const res = await call(patchMailbox, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id },
      body,
    });
    expect(res.statusCode).toBe(400);
  });

  it('answers 400 without a body and 404 for an unknown id', async () => {
    const id = (await allMailboxes())[0]!.id;
    expect(
      (await call(patchMailbox, { key: demoKeys.admin, method: 'PATCH', pathParameters: { id } })).statusCode,
    ).toBe(400);
    const unknown = await call(patchMailbox, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id: '00000000-0000-4000-8000-000000000000' },
      body: { activated: true },
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('GET /v1/safety-net-sequences', () => {
  it('lists one row per owner, sorted by name, crmSequenceId, owner email and id', async () => {
    const res = await call(sequences, { key: demoKeys.admin });
    expect(Object.keys(res.body)).toEqual(['limit', 'offset', 'sequences', 'total']);
    expect(res.body.total).toBe(7);
    const rows = res.body.sequences as Seq[];
    expect(Object.keys(rows[0]!)).toEqual(['activated', 'crmSequenceId', 'id', 'name', 'owner', 'service']);
    expect(rows.map((r) => [r.name, r.crmSequenceId, r.owner.email])).toEqual([
      ['Q3 Outbound', '101', 'ada.admin@acme.example'],
      ['Q3 Outbound', '101', 'max.member@acme.example'],
      ['Q3 Outbound', '101', 'sam.sales@acme.example'],
      ['Renewal cadence', '5001', 'ada.admin@acme.example'],
      ['Renewal cadence', '5001', 'otto.ops@acme.example'],
      ['Webinar follow-up', '102', 'max.member@acme.example'],
      ['Webinar follow-up', '5002', 'otto.ops@acme.example'],
    ]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(7);
  });

  it('filters by service and activated with exact totals; 400 on bad values', async () => {
    const all = await allSequences();
    for (const service of ['outreach', 'salesloft']) {
      for (const activated of ['true', 'false']) {
        const res = await call(sequences, { key: demoKeys.admin, query: { service, activated, limit: '1' } });
        expect(res.body.total).toBe(
          all.filter((r) => r.service === service && String(r.activated) === activated).length,
        );
      }
    }
    for (const query of [{ service: 'hubspot' }, { activated: '1' }] as Record<string, string>[]) {
      const res = await call(sequences, { key: demoKeys.admin, query });
      expect(res.statusCode).toBe(400);
      expect(res.body.error).toContain(Object.keys(query)[0]);
    }
  });

  it('serves more rows than one page of 1000 by offset paging', async () => {
    const owners = Array.from({ length: 1234 }, (_, i) => ({
      service: 'outreach' as const,
      crmSequenceId: String(9000 + (i % 37)),
      name: `Bulk ${String(i % 37).padStart(2, '0')}`,
      owner: {
        email: `owner${String(i).padStart(4, '0')}@acme.example`,
        firstName: 'O',
        lastName: String(i),
      },
    }));
    await importWorkspace({ companyId: db.accounts.acmeId, safetyNetSequences: owners });
    const first = await call(sequences, { key: demoKeys.admin, query: { limit: '1000' } });
    expect(first.body.total).toBe(1241);
    expect(first.body.sequences).toHaveLength(1000);
    const second = await call(sequences, { key: demoKeys.admin, query: { limit: '1000', offset: '1000' } });
    expect(second.body.sequences).toHaveLength(241);
    const rows = [...first.body.sequences, ...second.body.sequences] as Seq[];
    const sorted = [...rows].sort(
      (a, b) =>
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
        (a.crmSequenceId < b.crmSequenceId ? -1 : a.crmSequenceId > b.crmSequenceId ? 1 : 0) ||
        (a.owner.email < b.owner.email ? -1 : a.owner.email > b.owner.email ? 1 : 0) ||
        (a.id < b.id ? -1 : 1),
    );
    expect(rows).toEqual(sorted);
    for (const limit of [7, 333])
      expect((await allPages(sequences, demoKeys.admin, 'sequences', limit)).rows).toEqual(rows);
    // Filtered pages over a view of several chunks: totals and pages match filtering the full list.
    const filters: Record<string, string>[] = [
      { service: 'outreach' },
      { activated: 'false' },
      { activated: 'true', service: 'outreach' },
      { service: 'salesloft' },
    ];
    for (const query of filters) {
      const expected = rows.filter((r) =>
        Object.entries(query).every(([k, v]) => String(r[k as keyof Seq]) === v),
      );
      for (const limit of [1000, 97]) {
        const paged = await allPages(sequences, demoKeys.admin, 'sequences', limit, query);
        expect(paged.total).toBe(expected.length);
        expect(paged.rows).toEqual(expected);
      }
    }
  });
});

describe('PATCH /v1/safety-net-sequences/{id}', () => {
  it('answers 403 when the key creator may not toggle sequences, before reading the body', async () => {
    const id = (await allSequences()).find((r) => r.activated)!.id;
    const res = await call(patchSequence, {
      key: demoKeys.member,
      method: 'PATCH',
      pathParameters: { id },
      body: { activated: false },
    });
    expect(res.statusCode).toBe(403);
    expect(
      (await call(patchSequence, { key: demoKeys.member, method: 'PATCH', pathParameters: { id }, body: {} }))
        .statusCode,
    ).toBe(403);
    expect((await allSequences()).find((r) => r.id === id)!.activated).toBe(true);
  });

  it('switches every owner row of the sequence at once, and nothing else; idempotent', async () => {
    const before = await allSequences();
    const q3 = before.filter((r) => r.crmSequenceId === '101');
    expect(q3.every((r) => r.activated)).toBe(true);
    const target = q3[1]!;
    const res = await call(patchSequence, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id: target.id },
      body: { activated: false },
    });
    expect(res).toMatchObject({ statusCode: 200, body: { ...target, activated: false } });
    const after = await allSequences();
    for (const row of after) {
      const old = before.find((r) => r.id === row.id)!;
      expect(row.activated).toBe(
        row.crmSequenceId === '101' && row.service === 'outreach' ? false : old.activated,
      );
    }
    // Every owner row item, not only the list view.
    for (const owner of ['ada.admin@acme.example', 'max.member@acme.example', 'sam.sales@acme.example']) {
      expect(
        await readRawItem(safetyNetSequenceKey(db.accounts.acmeId, 'outreach', '101', owner)),
      ).toMatchObject({ activated: false });
    }
    for (const row of q3)
      expect(
        (await call(sequence, { key: demoKeys.admin, pathParameters: { id: row.id } })).body.activated,
      ).toBe(false);
    const again = await call(patchSequence, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id: target.id },
      body: { activated: false },
    });
    expect(again.body).toEqual(res.body);
    expect(await allSequences()).toEqual(after);
  });

  it('separates sequences of different services with the same name', async () => {
    const rows = await allSequences();
    const webinar = rows.filter((r) => r.name === 'Webinar follow-up');
    const salesloft = webinar.find((r) => r.service === 'salesloft')!;
    await call(patchSequence, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id: salesloft.id },
      body: { activated: false },
    });
    const after = (await allSequences()).filter((r) => r.name === 'Webinar follow-up');
    expect(after.map((r) => [r.service, r.activated])).toEqual([
      ['outreach', false],
      ['salesloft', false],
    ]);
  });

  it('switches a sequence with more owners than one transaction holds', async () => {
    const id = (await allSequences()).find((r) => r.crmSequenceId === '9000')!.id;
    // 1234 bulk rows spread over 37 sequences: crm 9000 has 34 owners; add 100 more.
    await importWorkspace({
      companyId: db.accounts.acmeId,
      safetyNetSequences: Array.from({ length: 100 }, (_, i) => ({
        service: 'outreach' as const,
        crmSequenceId: '9000',
        name: 'Bulk 00',
        owner: { email: `extra${i}@acme.example`, firstName: 'X', lastName: String(i) },
      })),
    });
    const res = await call(patchSequence, {
      key: demoKeys.admin,
      method: 'PATCH',
      pathParameters: { id },
      body: { activated: true },
    });
    expect(res.statusCode).toBe(200);
    const rows = (await allPages(sequences, demoKeys.admin, 'sequences', 1000)).rows as Seq[];
    const bulk = rows.filter((r) => r.crmSequenceId === '9000');
    expect(bulk).toHaveLength(134);
    expect(bulk.every((r) => r.activated)).toBe(true);
    expect(rows.filter((r) => r.crmSequenceId === '9001').every((r) => !r.activated)).toBe(true);
  });

  it('answers 400 for bad bodies and 404 for unknown or other companies ids', async () => {
    const id = (await allSequences())[0]!.id;
    for (const body of [{ activated: 'no' }, { active: true }, { activated: true, name: 'x' }]) {
      expect(
        (await call(patchSequence, { key: demoKeys.admin, method: 'PATCH', pathParameters: { id }, body }))
          .statusCode,
      ).toBe(400);
    }
    const globexId = (await allSequences(demoKeys.other))[0]!.id;
    for (const other of [globexId, '00000000-0000-4000-8000-000000000000', 'x']) {
      const res = await call(patchSequence, {
        key: demoKeys.admin,
        method: 'PATCH',
        pathParameters: { id: other },
        body: { activated: false },
      });
      expect(res).toMatchObject({ statusCode: 404, body: { error: 'Safety Net sequence not found' } });
      expect((await call(sequence, { key: demoKeys.admin, pathParameters: { id: other } })).statusCode).toBe(
        404,
      );
    }
    expect((await allSequences(demoKeys.other))[0]!.activated).toBe(true);
  });
});

describe('validation usage', () => {
  it('is left untouched by every workspace endpoint, reads and writes', async () => {
    const month = now.toISOString().slice(0, 7);
    const realMonth = new Date().toISOString().slice(0, 7);
    for (const m of new Set([month, realMonth])) {
      await dynamoDb().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...usageKey(db.accounts.acmeId, m), type: 'usage', count: 42 },
        }),
      );
    }
    const snapshot = async () =>
      Promise.all([month, realMonth].map((m) => readRawItem(usageKey(db.accounts.acmeId, m))));
    const before = await snapshot();
    const key = demoKeys.admin;
    const cmbx = (await call(listConnectedMailboxesRoute(clock), { key })).body.mailboxes[0].id;
    await call(getConnectedMailboxRoute(clock), { key, pathParameters: { id: cmbx } });
    await call(listConnectedDomainsRoute(), { key });
    await call(getConnectedDomainRoute(clock), { key, pathParameters: { domainName: 'acme.example' } });
    await call(listUsersRoute(clock), { key });
    await call(getUserRoute(), { key, pathParameters: { id: db.accounts.users[0]!.userId } });
    expect(
      (await call(inviteUserRoute(clock), { key, method: 'POST', body: { email: 'usage@acme.example' } }))
        .statusCode,
    ).toBe(201);
    const sn = (await allMailboxes())[0]!;
    await call(mailbox, { key, pathParameters: { id: sn.id } });
    await call(patchMailbox, {
      key,
      method: 'PATCH',
      pathParameters: { id: sn.id },
      body: { activated: !sn.activated },
    });
    const seq = (await allSequences())[0]!;
    await call(sequence, { key, pathParameters: { id: seq.id } });
    await call(patchSequence, {
      key,
      method: 'PATCH',
      pathParameters: { id: seq.id },
      body: { activated: !seq.activated },
    });
    expect(await snapshot()).toEqual(before);
  });
});
