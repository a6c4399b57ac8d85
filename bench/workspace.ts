// `npm run bench:workspace`: latency and read cost of the workspace endpoints on a large workspace
// (5,000 connected mailboxes x 400 days, 2,000 users, 5,000 Safety Net mailboxes, 20,000 sequence rows).
// Starts its own in-memory DynamoDB Local and calls the handlers in-process through the real API adapter
// (authentication and rate limit included), one request at a time. Not a test: it prints numbers.
// The last line is `p95_ms_limit50=<n> p95_ms_limit1000=<n>`.
import { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { dynamoDb, resetDynamoDb } from '../functions/clients/dynamodb';
import { createApiKey, createCompany } from '../functions/domain/accounts/accounts';
import { putAccountUser } from '../functions/domain/accounts/accounts';
import { reputationRangeNames } from '../functions/domain/workspace/dates';
import { generateWorkspace } from '../functions/domain/workspace/generate';
import { importWorkspace } from '../functions/domain/workspace/import';
import { apiHandler, type Route } from '../functions/http/api-handler';
import { queueUrlEnvNames } from '../functions/wiring';
import { getConnectedDomainRoute } from '../functions/handlers/get-connected-domain';
import { getConnectedMailboxRoute } from '../functions/handlers/get-connected-mailbox';
import { getSafetyNetMailboxRoute } from '../functions/handlers/get-safety-net-mailbox';
import { getSafetyNetSequenceRoute } from '../functions/handlers/get-safety-net-sequence';
import { getUserRoute } from '../functions/handlers/get-user';
import { listConnectedDomainsRoute } from '../functions/handlers/list-connected-domains';
import { listConnectedMailboxesRoute } from '../functions/handlers/list-connected-mailboxes';
import { listSafetyNetMailboxesRoute } from '../functions/handlers/list-safety-net-mailboxes';
import { listSafetyNetSequencesRoute } from '../functions/handlers/list-safety-net-sequences';
import { listUsersRoute } from '../functions/handlers/list-users';
import { startProcessTable } from '../test/helpers/process-table';
import { apiEvent, lambdaContext } from '../local/events';

const size = {
  mailboxes: Number(process.env.BENCH_MAILBOXES ?? 5000),
  days: Number(process.env.BENCH_DAYS ?? 400),
  users: Number(process.env.BENCH_USERS ?? 2000),
  safetyNetMailboxes: Number(process.env.BENCH_SN_MAILBOXES ?? 5000),
  sequences: Number(process.env.BENCH_SEQUENCES ?? 20000),
};
const iterations = Number(process.env.BENCH_ITERATIONS ?? 12);

/** Read capacity units of every DynamoDB call, summed per request. */
let capacity = 0;
function meterCapacity(): void {
  dynamoDb().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
        .ConsumedCapacity;
      for (const c of [consumed ?? []].flat())
        capacity += c.ReadCapacityUnits ?? (c.WriteCapacityUnits ? 0 : (c.CapacityUnits ?? 0));
      return result;
    },
    { step: 'initialize', name: 'benchCapacity' },
  );
}

async function company(id: string, key: string, seats: number): Promise<void> {
  await createCompany({ companyId: id, name: `bench ${id.slice(-4)}`, seats });
  const user = {
    companyId: id,
    userId: id.replace(/.{4}$/, 'a0a0'),
    email: `admin@${id.slice(-4)}.bench`,
    name: 'Bench Admin',
    role: 'admin' as const,
    permissions: { inviteUsers: true, toggleSequences: true },
  };
  await putAccountUser(user);
  await createApiKey({
    companyId: id,
    userId: user.userId,
    userEmail: user.email,
    name: 'bench',
    rawKey: key,
  });
}

interface Sample {
  ms: number;
  rcu: number;
  /** CPU time of this process (handler, SDK, parsing), ms: moves far less with the machine's load. */
  cpu: number;
}

async function measure(
  route: Route,
  key: string,
  query: Record<string, string>,
  pathParameters?: Record<string, string>,
) {
  const handler = apiHandler(route);
  const run = async (): Promise<Sample> => {
    capacity = 0;
    const started = performance.now();
    const c0 = process.cpuUsage();
    const result = await handler(
      apiEvent({ method: 'GET', path: '/bench', headers: { 'x-api-key': key }, query, pathParameters }),
      lambdaContext(),
    );
    const ms = performance.now() - started;
    const c = process.cpuUsage(c0);
    if (result.statusCode !== 200)
      throw new Error(`bench request failed: ${result.statusCode} ${result.body}`);
    return { ms, rcu: capacity, cpu: (c.user + c.system) / 1000 };
  };
  await run(); // warm-up (module caches, JIT)
  const samples: Sample[] = [];
  for (let i = 0; i < iterations; i++) samples.push(await run());
  return samples;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function firstRow(route: Route, key: string, envelope: string): Promise<Record<string, unknown>> {
  const result = await apiHandler(route)(
    apiEvent({ method: 'GET', path: '/bench', headers: { 'x-api-key': key }, query: { limit: '1' } }),
    lambdaContext(),
  );
  return (JSON.parse(result.body!) as Record<string, Record<string, unknown>[]>)[envelope]![0]!;
}

async function main(): Promise<void> {
  const dynamo = await startProcessTable('mailvet-bench', {
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    BUCKET_NAME: 'unused',
    ...Object.fromEntries(queueUrlEnvNames.map((name) => [name, 'unused'])),
    LOG_LEVEL: 'silent',
    // One client sending requests back to back: the per-company limit is not what is measured.
    RATE_LIMIT_PER_SECOND: '1000000',
  });
  try {
    const big = 'b0b0b0b0-0000-4000-8000-00000000b001';
    await company(big, 'bench-key', size.users + 100);
    let started = Date.now();
    const data = generateWorkspace({ companyId: big, ...size });
    const summary = await importWorkspace(data);
    console.log(
      `workspace: ${JSON.stringify(summary)} imported in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    // The same 300 mailboxes with 30 and with 400 days of history: a list page must cost the same.
    const short = 'b0b0b0b0-0000-4000-8000-00000000b002';
    const long = 'b0b0b0b0-0000-4000-8000-00000000b003';
    await company(short, 'bench-short', 10);
    await company(long, 'bench-long', 10);
    const small = { mailboxes: 300, users: 0, safetyNetMailboxes: 0, sequences: 0 };
    await importWorkspace(generateWorkspace({ companyId: short, days: 30, ...small }));
    await importWorkspace(generateWorkspace({ companyId: long, days: 400, ...small }));
    meterCapacity();

    const rows: { name: string; limit: number; p50: number; p95: number; rcu: number; samples: Sample[] }[] =
      [];
    const record = (name: string, limit: number, samples: Sample[]) => {
      const ms = samples.map((s) => s.ms);
      rows.push({
        name,
        limit,
        p50: percentile(ms, 50),
        p95: percentile(ms, 95),
        rcu: percentile(
          samples.map((s) => s.rcu),
          50,
        ),
        samples,
      });
    };
    const lists: [string, Route, number][] = [
      ['connected-mailboxes', listConnectedMailboxesRoute(), size.mailboxes],
      ['connected-domains', listConnectedDomainsRoute(), Math.ceil(size.mailboxes / 200)],
      ['users', listUsersRoute(), size.users],
      ['safety-net-mailboxes', listSafetyNetMailboxesRoute(), size.safetyNetMailboxes],
      ['safety-net-sequences', listSafetyNetSequencesRoute(), size.sequences],
    ];
    for (const [name, route, total] of lists) {
      for (const limit of [50, 1000]) {
        for (const [where, offset] of [
          ['start', 0],
          ['end', Math.max(0, total - limit)],
        ] as const) {
          const ranges = name === 'connected-mailboxes' ? reputationRangeNames : [undefined];
          for (const range of ranges) {
            const query: Record<string, string> = {
              limit: String(limit),
              offset: String(offset),
              ...(range ? { reputationRange: range } : {}),
            };
            record(
              `GET /v1/${name} limit=${limit} offset=${where}${range ? ` ${range}` : ''}`,
              limit,
              await measure(route, 'bench-key', query),
            );
          }
        }
      }
    }
    const mailbox = await firstRow(listConnectedMailboxesRoute(), 'bench-key', 'mailboxes');
    const user = (await measureFind(listUsersRoute())) as { id: string };
    const details: [string, Route, Record<string, string>][] = [
      ['GET /v1/connected-mailboxes/{id} (90 days)', getConnectedMailboxRoute(), { id: String(mailbox.id) }],
      [
        'GET /v1/connected-domains/{domain} (90 days)',
        getConnectedDomainRoute(),
        { domainName: String(mailbox.domain) },
      ],
      ['GET /v1/users/{id}', getUserRoute(), { id: user.id }],
      [
        'GET /v1/safety-net-mailboxes/{id}',
        getSafetyNetMailboxRoute(),
        { id: String((await firstRow(listSafetyNetMailboxesRoute(), 'bench-key', 'mailboxes')).id) },
      ],
      [
        'GET /v1/safety-net-sequences/{id}',
        getSafetyNetSequenceRoute(),
        { id: String((await firstRow(listSafetyNetSequencesRoute(), 'bench-key', 'sequences')).id) },
      ],
    ];
    for (const [name, route, params] of details)
      record(name, 0, await measure(route, 'bench-key', {}, params));

    const history: string[] = [];
    for (const [label, key] of [
      ['30 days', 'bench-short'],
      ['400 days', 'bench-long'],
    ] as const) {
      const samples = await measure(listConnectedMailboxesRoute(), key, {
        limit: '50',
        reputationRange: 'last30Days',
      });
      history.push(
        `${label}: ${percentile(
          samples.map((s) => s.rcu),
          50,
        )} RCU`,
      );
    }

    console.log(
      '\nrequest'.padEnd(68) +
        'p50 ms'.padStart(9) +
        'p95 ms'.padStart(9) +
        'RCU/req'.padStart(10) +
        'CPU ms p50'.padStart(12),
    );
    for (const row of rows) {
      console.log(
        row.name.padEnd(67) +
          row.p50.toFixed(1).padStart(9) +
          row.p95.toFixed(1).padStart(9) +
          row.rcu.toFixed(1).padStart(10) +
          percentile(
            row.samples.map((x) => x.cpu),
            50,
          )
            .toFixed(2)
            .padStart(12),
      );
    }
    console.log(`\nlist page of 50 mailboxes (300 mailboxes) with history of ${history.join(' vs ')}`);
    console.log(
      `started ${((Date.now() - started) / 1000).toFixed(0)} s ago; ${iterations} timed requests per line after one warm-up`,
    );
    const p95Of = (limit: number) =>
      percentile(
        rows.filter((r) => r.limit === limit).flatMap((r) => r.samples.map((s) => s.ms)),
        95,
      );
    console.log(`p95_ms_limit50=${Math.round(p95Of(50))} p95_ms_limit1000=${Math.round(p95Of(1000))}`);
    started = Date.now();
  } finally {
    resetDynamoDb();
    await dynamo.stop();
  }
}

/** A generated active user (offset 1 skips the bench admin, which the accounts module wrote without an id index). */
async function measureFind(route: Route): Promise<unknown> {
  const result = await apiHandler(route)(
    apiEvent({
      method: 'GET',
      path: '/bench',
      headers: { 'x-api-key': 'bench-key' },
      query: { status: 'active', limit: '1', offset: '1' },
    }),
    lambdaContext(),
  );
  return (JSON.parse(result.body!) as { users: unknown[] }).users[0];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
