// Every route of the local API under generated bad input (fast-check): bodies of any shape and depth, query
// strings, path ids of any length and alphabet. No input may yield a 5xx or leak a stack trace; every
// refusal is a JSON {"error": ...}. Also the specific inputs issue 10 found answering 500.
import fc from 'fast-check';
import { routes, type RouteSpec } from '../../functions/wiring';
import { useRuntimeWithDns } from '../helpers/local-runtime';
import { startFixtureDns } from '../unit/validation/fixtures/dns-server';

jest.setTimeout(240_000);

// No zones: every domain is NXDOMAIN, so validations finish at once and never leave the machine.
const world = useRuntimeWithDns(
  () => startFixtureDns({}),
  (dns) => ({
    DNS_SERVERS: dns.servers.join(','),
    DNS_TIMEOUT_MS: '300',
    RATE_LIMIT_PER_SECOND: '100000',
    LOG_LEVEL: 'silent',
  }),
);

interface Outcome {
  status: number;
  text: string;
}

async function send(method: string, path: string, body?: string): Promise<Outcome> {
  const response = await fetch(`${world.local.baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': world.local.keys.admin, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, text: await response.text() };
}

function expectClean(outcome: Outcome, what: string): void {
  if (outcome.status >= 500 || /\n\s+at |Error: /.test(outcome.text)) {
    throw new Error(`${what} answered ${outcome.status}: ${outcome.text.slice(0, 300)}`);
  }
  if (outcome.status >= 400) {
    const parsed = JSON.parse(outcome.text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['error']);
    expect(typeof parsed.error).toBe('string');
  }
}

/** `{"a":{"a":...}}` or `[[[...]]]`, `depth` levels, built without recursion. */
function nested(depth: number, array: boolean): string {
  return array ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const pathId = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ minLength: 900, maxLength: 3000 }),
  fc.constantFrom(
    '..',
    '%',
    '%00',
    'null',
    '0',
    '-1',
    '5e1f0000-0000-4000-8000-000000000000',
    'a'.repeat(2049),
  ),
);

const queryNames = [
  'limit',
  'offset',
  'status',
  'month',
  'startDate',
  'endDate',
  'columns',
  'search',
  'sort',
  'order',
  'state',
  'activated',
];
const query = fc.dictionary(
  fc.constantFrom(...queryNames),
  fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.integer().map(String),
    fc.string({ minLength: 500, maxLength: 2000 }),
  ),
  { maxKeys: 4 },
);

const bodyFields = [
  'email',
  'metadata',
  'fileName',
  'emailColumn',
  'callbackUrl',
  'activated',
  'role',
  'name',
];
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  jsonValue.map((value) => JSON.stringify(value)),
  fc
    .dictionary(
      fc.constantFrom(...bodyFields),
      fc.oneof(jsonValue, fc.string({ minLength: 300, maxLength: 5000 })),
      { maxKeys: 4 },
    )
    .map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc
    .record({
      depth: fc.integer({ min: 500, max: 20_000 }),
      array: fc.boolean(),
      field: fc.constantFrom(...bodyFields),
    })
    .map(({ depth, array, field }) => `{"email":"a@b.test","${field}":${nested(depth, array)}}`),
);

function pathOf(route: RouteSpec, ids: string[]): string {
  let n = 0;
  return route.path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[n++] ?? 'x'));
}

describe('the API under generated bad input', () => {
  it('never answers 5xx nor shows a stack trace, on any route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(pathId, { minLength: 2, maxLength: 2 }),
        query,
        body,
        async (route, ids, params, text) => {
          const search = new URLSearchParams(params).toString();
          const path = pathOf(route, ids) + (search ? `?${search}` : '');
          const sendsBody = route.method === 'POST' || route.method === 'PATCH';
          expectClean(
            await send(route.method, path, sendsBody ? text : undefined),
            `${route.method} ${path.slice(0, 120)}`,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers 400 for metadata nested thousands of levels deep', async () => {
    for (const path of ['/v1/email/validate', '/v1/email/validate-async']) {
      for (const array of [false, true]) {
        const outcome = await send(
          'POST',
          path,
          `{"email":"a@b.test","metadata":{"x":${nested(5000, array)}}}`,
        );
        expect(outcome.status).toBe(400);
        expectClean(outcome, path);
      }
    }
  });

  it('answers 404 for a connected domain name over the key limit', async () => {
    const outcome = await send('GET', `/v1/connected-domains/${'a'.repeat(3000)}.test`);
    expect(outcome).toEqual({ status: 404, text: '{"error":"Connected domain not found"}' });
  });

  it('refuses invites for addresses no mailbox can have: over 254 characters, local part over 64', async () => {
    for (const email of [
      `${'a'.repeat(1200)}@example.com`,
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(290)}.com`,
    ]) {
      const outcome = await send('POST', '/v1/users', JSON.stringify({ email }));
      expect(outcome.status).toBe(400);
      expectClean(outcome, email.slice(0, 20));
    }
  });

  it('answers 413 and 431 with {"error": ...} bodies', async () => {
    const large = await send('POST', '/v1/email/validate', 'x'.repeat(11 * 1024 * 1024));
    expect(large.status).toBe(413);
    expect(JSON.parse(large.text)).toEqual({ error: 'Request body too large' });
    const response = await fetch(`${world.local.baseUrl}/v1/users`, {
      headers: { 'x-api-key': world.local.keys.admin, 'x-padding': 'p'.repeat(20_000) },
    });
    expect(response.status).toBe(431);
    expect(await response.json()).toEqual({ error: 'Request headers too large' });
  });
});
