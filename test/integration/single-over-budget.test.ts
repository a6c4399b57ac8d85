// The sync endpoint past its budget, over real HTTP against the local runtime: 202 with a poll URL,
// then the validations queue (SQS emulator and runValidation) finishes the request and polling gets 200.
import { resetSettings } from '../../functions/settings';
import { monthlyUsage } from '../../functions/domain/usage';
import { fixtureDnsSettings, useRuntimeWithDns } from '../helpers/local-runtime';
import { startFixtureDns } from '../unit/validation/fixtures/dns-server';
import { ZONES } from '../unit/validation/fixtures/world';

// Response bodies are read as loosely typed JSON: the assertions are what check their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;
const bodyOf = (response: Response): Promise<Body> => response.json();

const world = useRuntimeWithDns(
  () => startFixtureDns(ZONES),
  (dns) => ({
    // slow.test never answers: each lookup waits the whole timeout, far past the 250 ms budget
    ...fixtureDnsSettings(dns, 4000),
    RATE_LIMIT_PER_SECOND: '1000',
    SYNC_BUDGET_MS: '250',
  }),
);

afterEach(() => {
  process.env.SYNC_BUDGET_MS = '250';
  resetSettings();
});

const validate = (body: unknown) =>
  fetch(`${world.local.baseUrl}/v1/email/validate`, {
    method: 'POST',
    headers: { 'x-api-key': world.local.keys.admin, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const get = (path: string) =>
  fetch(`${world.local.baseUrl}${path}`, { headers: { 'x-api-key': world.local.keys.admin } });

async function pollUntilSettled(pollUrl: string, timeoutMs = 30_000) {
  const seen: number[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await get(pollUrl);
    seen.push(response.status);
    if (response.status !== 202 || Date.now() > deadline) return { response, seen };
    expect(await bodyOf(response)).toEqual({
      pollUrl,
      requestId: pollUrl.split('/').pop(),
      retryAfter: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('POST /v1/email/validate past its budget', () => {
  it('answers 202 when DNS is slower than the budget, and polling reaches 200 through the queue', async () => {
    const response = await validate({ email: 'someone@slow.test', metadata: { source: 'signup' } });
    // 202 before the lookup could end: the first poll below still finds the request in progress.
    expect(response.status).toBe(202);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = await bodyOf(response);
    expect(body).toEqual({
      pollUrl: `/v1/email/validate/${body.requestId}`,
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      retryAfter: 1,
    });

    const { response: done, seen } = await pollUntilSettled(body.pollUrl);
    expect(seen[0]).toBe(202);
    expect(done.status).toBe(200);
    expect(await bodyOf(done)).toMatchObject({
      email: 'someone@slow.test',
      metadata: { source: 'signup' },
      requestId: body.requestId,
      result: { status: 'some_risk', reason: 'dns_timeout' },
    });
  });

  it('still answers 200 within the budget for a domain that resolves quickly', async () => {
    const response = await validate({ email: 'bob@example-corp.test' });
    expect(response.status).toBe(200);
    expect((await bodyOf(response)).result.status).toBe('safe');
  });

  it('defers every request when SYNC_BUDGET_MS is 0, and counts each once when the queue finishes it', async () => {
    process.env.SYNC_BUDGET_MS = '0';
    resetSettings();
    const before = await monthlyUsage(world.local.ids.acme);
    const response = await validate({ email: 'alice@example-corp.test' });
    expect(response.status).toBe(202);
    const { pollUrl } = await bodyOf(response);
    const { response: done } = await pollUntilSettled(pollUrl);
    expect(done.status).toBe(200);
    expect(await bodyOf(done)).toMatchObject({
      email: 'alice@example-corp.test',
      result: { status: 'safe' },
    });
    expect(await monthlyUsage(world.local.ids.acme)).toBe(before + 1);
  });
});
