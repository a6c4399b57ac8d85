// The five active-job slots against DynamoDB Local: its conditional puts, not a re-implementation of
// them, decide which of many concurrent creations get a slot.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { demoKeys } from '../../local/demo/accounts';
import { maxActiveJobs } from '../../functions/domain/bulk/limits';
import { createJobRoute } from '../../functions/handlers/create-job';
import { jobSlotKey } from '../../functions/store/keys';
import { call, startWorkspaceDb, type WorkspaceDb } from './workspace-harness';

let db: WorkspaceDb;

beforeAll(async () => {
  db = await startWorkspaceDb();
});

afterAll(async () => {
  await db?.stop();
});

const create = (key: string) =>
  call(createJobRoute, { key, method: 'POST', path: '/v1/email/validate-file', body: { emailColumn: 0 } });

describe('POST /v1/email/validate-file: the active-job limit', () => {
  it('lets exactly 5 of 20 concurrent creations through; the rest get 429 with Retry-After 60', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => create(demoKeys.admin)));
    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(5);
    const refused = results.filter((r) => r.statusCode === 429);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.raw).toBe(
        '{"error":"Concurrent job limit reached. Complete or wait for existing jobs before creating new ones."}',
      );
      expect(r.headers['retry-after']).toBe('60');
    }
  });

  it('frees the slot of a job whose upload URL expired unused, at once', async () => {
    const key = demoKeys.other;
    for (let n = 0; n < 5; n++) expect((await create(key)).statusCode).toBe(202);
    expect((await create(key)).statusCode).toBe(429);
    for (let slot = 0; slot < maxActiveJobs; slot++)
      await dynamoDb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: jobSlotKey(db.accounts.globexId, slot),
          UpdateExpression: 'SET holdUntilMs = :past',
          ExpressionAttributeValues: { ':past': Date.now() - 1 },
        }),
      );
    expect((await create(key)).statusCode).toBe(202);
  });
});
