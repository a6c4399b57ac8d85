// Shared set-up of the workspace integration tests: an in-memory DynamoDB Local with the table, the
// process pointed at it, the demo accounts, and a caller that runs a route through the real adapter.
import { resetDynamoDb } from '../../functions/clients/dynamodb';
import { resetSqs } from '../../functions/clients/sqs';
import { seedDemoAccounts, type DemoAccounts } from '../../local/demo/accounts';
import { apiHandler, type Route } from '../../functions/http/api-handler';
import type { DynamoDbLocal } from '../../local/dynamodb';
import { apiEvent, lambdaContext } from '../../local/events';
import { startProcessTable } from '../helpers/process-table';

export interface WorkspaceDb {
  dynamo: DynamoDbLocal;
  accounts: DemoAccounts;
  stop(): Promise<void>;
}

export async function startWorkspaceDb(): Promise<WorkspaceDb> {
  const dynamo = await startProcessTable('mailvet-workspace-test', {
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    // Tests fire requests faster than the 25/s product default; the limit is not what they test.
    RATE_LIMIT_PER_SECOND: '100000',
  });
  resetSqs();
  const accounts = await seedDemoAccounts();
  return {
    dynamo,
    accounts,
    stop: async () => {
      resetDynamoDb();
      await dynamo.stop();
    },
  };
}

export interface CallInput {
  key?: string;
  method?: string;
  path?: string;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  body?: unknown;
}

export interface CallResult {
  statusCode: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  raw: string | undefined;
  headers: Record<string, string | number | boolean>;
}

export async function call(route: Route, input: CallInput = {}): Promise<CallResult> {
  const result = await apiHandler(route)(
    apiEvent({
      method: input.method ?? 'GET',
      path: input.path ?? '/v1/test',
      headers: input.key === undefined ? {} : { 'x-api-key': input.key },
      query: input.query,
      pathParameters: input.pathParameters,
      body:
        input.body === undefined
          ? undefined
          : typeof input.body === 'string'
            ? input.body
            : JSON.stringify(input.body),
    }),
    lambdaContext(),
  );
  const raw = result.body;
  return {
    statusCode: result.statusCode ?? 0,
    body: raw === undefined ? undefined : JSON.parse(raw),
    raw,
    headers: result.headers ?? {},
  };
}

/** Every page of a list with the given limit, concatenated. */
export async function allPages(
  route: Route,
  key: string,
  envelope: string,
  limit: number,
  query: Record<string, string> = {},
) {
  const rows: unknown[] = [];
  let total = -1;
  for (let offset = 0; total < 0 || offset < total; offset += limit) {
    const page = await call(route, {
      key,
      query: { ...query, limit: String(limit), offset: String(offset) },
    });
    if (page.statusCode !== 200) throw new Error(`page failed: ${page.raw}`);
    total = page.body.total;
    rows.push(...page.body[envelope]);
    if (page.body[envelope].length === 0) break;
  }
  return { rows, total };
}
