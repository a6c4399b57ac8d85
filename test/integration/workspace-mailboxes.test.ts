// Connected mailboxes and domains against DynamoDB Local: lists, windows, paging, details, isolation.
import { demoKeys } from '../../functions/domain/accounts/demo-accounts';
import { createCompany } from '../../functions/domain/accounts/accounts';
import { seedDemoWorkspace } from '../../functions/domain/workspace/demo-workspace';
import { importWorkspace } from '../../functions/domain/workspace/import';
import { getConnectedDomainRoute } from '../../functions/handlers/get-connected-domain';
import { getConnectedMailboxRoute } from '../../functions/handlers/get-connected-mailbox';
import { listConnectedDomainsRoute } from '../../functions/handlers/list-connected-domains';
import { listConnectedMailboxesRoute } from '../../functions/handlers/list-connected-mailboxes';
import { allPages, call, startWorkspaceDb, type WorkspaceDb } from './workspace-harness';

const now = new Date('2026-03-04T15:30:00.000Z'); // a Wednesday
const clock = () => now;
const list = listConnectedMailboxesRoute(clock);
const detail = getConnectedMailboxRoute(clock);
let db: WorkspaceDb;

beforeAll(async () => {
  db = await startWorkspaceDb();
  await seedDemoWorkspace(db.accounts, now);
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
