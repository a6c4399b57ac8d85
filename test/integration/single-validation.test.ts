// The single-email endpoints as a client sees them, over real HTTP against the local runtime: the sync
// 200 with the full result, the async path through the SQS emulator, polling outcomes (202, 200, 404,
// 500), tenant isolation, 400s, and usage metering. DNS answers come from the engine's fixture server.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createPendingRequest } from '../../functions/store/validation-requests';
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
    ...fixtureDnsSettings(dns),
    RATE_LIMIT_PER_SECOND: '1000',
  }),
);

const post = (path: string, body: unknown, key: string = world.local.keys.admin) =>
  fetch(`${world.local.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const get = (path: string, key: string = world.local.keys.admin) =>
  fetch(`${world.local.baseUrl}${path}`, { headers: { 'x-api-key': key } });

/** Polls the URL until it stops answering 202; returns the last response and every status seen. */
async function pollUntilSettled(pollUrl: string, key: string = world.local.keys.admin, timeoutMs = 20_000) {
  const seen: number[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await get(pollUrl, key);
    seen.push(response.status);
    if (response.status !== 202 || Date.now() > deadline) return { response, seen };
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sortedAtEveryLevel = (text: string) => {
  const check = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.every(check);
    if (value === null || typeof value !== 'object') return true;
    const keys = Object.keys(value);
    return keys.join() === [...keys].sort().join() && Object.values(value).every(check);
  };
  return check(JSON.parse(text));
};

describe('POST /v1/email/validate', () => {
  it('answers 200 with the full result for a safe address, keys sorted, metadata echoed', async () => {
    const response = await post('/v1/email/validate', {
      email: 'alice@example-corp.test',
      metadata: { crmId: 42 },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(sortedAtEveryLevel(text)).toBe(true);
    const body = JSON.parse(text);
    expect(body).toEqual({
      domain: expect.objectContaining({
        name: 'example-corp.test',
        mxRecords: [{ exchange: 'mx.loop.test', priority: 10 }],
        mxProvider: expect.any(String),
        isCatchAll: null,
        isDisposable: false,
        isFreeProvider: false,
      }),
      email: 'alice@example-corp.test',
      mailbox: expect.objectContaining({ isRoleAccount: false }),
      metadata: { crmId: 42 },
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      result: { reason: 'domain_ok', status: 'safe', subStatus: null },
      validatedAt: expect.any(String),
    });
    expect(new Date(body.validatedAt).toISOString()).toBe(body.validatedAt);

    // The stored result is what polling returns afterwards.
    const polled = await get(`/v1/email/validate/${body.requestId}`);
    expect(polled.status).toBe(200);
    expect(await bodyOf(polled)).toEqual(body);
  });

  it('gives the verdict and reason of a bad domain and a typo suggestion', async () => {
    const nx = await bodyOf(await post('/v1/email/validate', { email: 'bob@nowhere-at-all.test' }));
    expect(nx.result).toMatchObject({ status: 'block_bounce_risk', reason: 'no_such_domain' });
    expect(nx).not.toHaveProperty('metadata');
    const typo = await bodyOf(await post('/v1/email/validate', { email: 'jane@outllook.com' }));
    expect(typo.didYouMean).toBe('jane@outlook.com');
  });

  it('answers 400 for a missing or non-string email and for metadata that is not an object', async () => {
    for (const body of [{}, { email: 42 }, { email: null }, [], '"just text"', 'null', { metadata: {} }]) {
      const response = await post('/v1/email/validate', body);
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('{"error":"email is required"}');
    }
    const empty = await fetch(`${world.local.baseUrl}/v1/email/validate`, {
      method: 'POST',
      headers: { 'x-api-key': world.local.keys.admin },
    });
    expect(await empty.text()).toBe('{"error":"email is required"}');
    for (const metadata of [[1], 'x', 7, true]) {
      const response = await post('/v1/email/validate', { email: 'alice@example-corp.test', metadata });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('{"error":"metadata must be a JSON object"}');
    }
    const async = await post('/v1/email/validate-async', { mail: 'alice@example-corp.test' });
    expect(async.status).toBe(400);
    expect(await async.text()).toBe('{"error":"email is required"}');
  });
});

describe('POST /v1/email/validate-async', () => {
  it('answers 202 at once and the SQS path brings polling to 200 with the metadata', async () => {
    const accepted = await post('/v1/email/validate-async', {
      email: 'info@acme.test',
      metadata: { list: 'q3' },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('retry-after')).toBe('1');
    const body = await bodyOf(accepted);
    expect(Object.keys(body)).toEqual(['pollUrl', 'requestId', 'retryAfter']);
    expect(body.pollUrl).toBe(`/v1/email/validate/${body.requestId}`);
    expect(body.retryAfter).toBe(1);

    const { response } = await pollUntilSettled(body.pollUrl);
    expect(response.status).toBe(200);
    const result = await bodyOf(response);
    expect(result).toMatchObject({
      email: 'info@acme.test',
      metadata: { list: 'q3' },
      requestId: body.requestId,
      result: { status: 'some_risk', reason: 'role_account' },
      mailbox: { isRoleAccount: true },
    });
  });
});

describe('GET /v1/email/validate/{requestId}', () => {
  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const response = await get(`/v1/email/validate/${id}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toBe('{"error":"Validation request not found"}');
    }
  });

  it("answers 404 to another company polling a company's requestId", async () => {
    const mine = await bodyOf(await post('/v1/email/validate', { email: 'carol@example-corp.test' }));
    const theirs = await get(`/v1/email/validate/${mine.requestId}`, world.local.keys.other);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toBe('{"error":"Validation request not found"}');
    // The same company's other key sees it.
    expect((await get(`/v1/email/validate/${mine.requestId}`, world.local.keys.member)).status).toBe(200);
  });

  it("answers 500 once the request's message reached the DLQ and failValidation failed it", async () => {
    const requestId = '5e1f0000-0000-4000-8000-00000000d1e0';
    await createPendingRequest({
      companyId: world.local.ids.acme,
      requestId,
      status: 'pending',
      input: 'dave@example-corp.test',
      createdAt: new Date().toISOString(),
    });
    expect((await get(`/v1/email/validate/${requestId}`)).status).toBe(202);

    const sqs = new SQSClient({ endpoint: world.local.runtime.endpoints.sqs, region: 'us-east-1' });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: world.local.runtime.env.VALIDATIONS_DLQ_URL,
        MessageBody: JSON.stringify({ companyId: world.local.ids.acme, requestId }),
      }),
    );
    sqs.destroy();

    const { response } = await pollUntilSettled(`/v1/email/validate/${requestId}`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"Validation failed; submit the address again"}');

    // A late redelivery on the main queue does not revive it.
    await world.local.runtime.invoke(
      'runValidation',
      sqsEvent({ companyId: world.local.ids.acme, requestId }),
    );
    expect((await get(`/v1/email/validate/${requestId}`)).status).toBe(500);
  });

  it('answers 500 for a request pending far beyond every retry window', async () => {
    const requestId = '5e1f0000-0000-4000-8000-0000000001d0';
    await createPendingRequest({
      companyId: world.local.ids.acme,
      requestId,
      status: 'pending',
      input: 'erin@example-corp.test',
      createdAt: new Date(Date.now() - 3 * 3600_000).toISOString(),
    });
    const response = await get(`/v1/email/validate/${requestId}`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(
      '{"error":"Validation did not complete in time; submit the address again"}',
    );
  });
});

function sqsEvent(message: unknown) {
  return {
    Records: [
      {
        messageId: `m-${Math.random()}`,
        receiptHandle: 'r',
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: '1' },
        messageAttributes: {},
      },
    ],
  };
}

describe('usage metering', () => {
  it('counts each validated address once, also when its message is delivered twice', async () => {
    const before = await monthlyUsage(world.local.ids.acme);
    await post('/v1/email/validate', { email: 'first.last@example-corp.test' });
    const requestId = '5e1f0000-0000-4000-8000-0000000002d0';
    await createPendingRequest({
      companyId: world.local.ids.acme,
      requestId,
      status: 'pending',
      input: 'mary.major@example-corp.test',
      createdAt: new Date().toISOString(),
    });
    const event = sqsEvent({ companyId: world.local.ids.acme, requestId });
    await world.local.runtime.invoke('runValidation', event);
    await world.local.runtime.invoke('runValidation', event);
    expect((await get(`/v1/email/validate/${requestId}`)).status).toBe(200);
    expect(await monthlyUsage(world.local.ids.acme)).toBe(before + 2);
  });

  it('does not count 400s, polls or workspace endpoints', async () => {
    const done = await bodyOf(await post('/v1/email/validate', { email: 'x@example-corp.test' }));
    const before = await monthlyUsage(world.local.ids.acme);
    const globexBefore = await monthlyUsage(world.local.ids.globex);
    await post('/v1/email/validate', {});
    await get(`/v1/email/validate/${done.requestId}`);
    for (const path of [
      '/v1/users',
      '/v1/connected-mailboxes',
      '/v1/connected-domains',
      '/v1/safety-net-sequences',
    ]) {
      expect((await get(path)).status).toBe(200);
    }
    expect(await monthlyUsage(world.local.ids.acme)).toBe(before);
    expect(await monthlyUsage(world.local.ids.globex)).toBe(globexBefore);
  });
});
