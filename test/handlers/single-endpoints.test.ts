// The single-email API handlers with the AWS SDK mocked: 400 texts, 200/202 shapes with sorted keys,
// what is stored and queued, polling outcomes, and that the tenant always comes from the API key.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { setSingleEngine, type Validator } from '../../functions/domain/single-validation/engine';
import { budgetMs, handler as validateEmail } from '../../functions/handlers/validate-email';
import { handler as validateEmailAsync } from '../../functions/handlers/validate-email-async';
import { handler as getValidation } from '../../functions/handlers/get-validation';
import { resetSecretClients } from '../../functions/clients/secrets';
import { resetSecretSettings } from '../../functions/middlewares/secret-settings';
import { resetSettings, settings } from '../../functions/settings';
import { apiEvent, lambdaContext } from '../../local/events';
import { safeResult } from '../fixtures/validation-results';
import { mockApiKeyRead, mockStoredValidationRequest } from '../helpers/mocked-store';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const key = 'mv_live_single';
const companyId = 'c-acme';
const requestId = '3b0d2a6e-1c4f-4e8a-9d2b-7f6e5d4c3b2a';

/** Every address reads as safe on one domain. */
const resultFor = (email: string) => safeResult(email, 'example.test');

const calls: string[] = [];
const instantEngine: Validator = {
  validate: async (raw) => {
    calls.push(String(raw));
    return resultFor(String(raw));
  },
};
const slowEngine: Validator = {
  validate: (raw) => new Promise((resolve) => setTimeout(() => resolve(resultFor(String(raw))), 300)),
};

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  calls.length = 0;
  ddb.on(GetCommand).resolves({});
  mockApiKeyRead(ddb, key, { companyId, userId: 'u1', userEmail: 'a@acme.test', keyId: 'k1' });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
  // The company's usage records: none yet, so the default quota applies.
  ddb.on(QueryCommand).resolves({ Items: [] });
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
  setSingleEngine(instantEngine);
  delete process.env.SYNC_BUDGET_MS;
  resetSettings();
});

afterAll(() => setSingleEngine(undefined));

const post = (handler: typeof validateEmail, body: string | undefined, remainingMs = 29_000) =>
  handler(
    apiEvent({ method: 'POST', path: '/v1/email/validate', headers: { 'x-api-key': key }, body }),
    lambdaContext('validateEmail', remainingMs),
  );

const poll = (id: string) =>
  getValidation(
    apiEvent({
      method: 'GET',
      path: `/v1/email/validate/${id}`,
      headers: { 'x-api-key': key },
      pathParameters: { requestId: id },
    }),
    lambdaContext('getValidation'),
  );

describe('POST /v1/email/validate and /validate-async: request bodies', () => {
  it.each([
    ['no body', undefined],
    ['an empty object', '{}'],
    ['a number email', '{"email":42}'],
    ['a null email', '{"email":null}'],
    ['an array body', '[{"email":"a@b.test"}]'],
  ])('answers 400 "email is required" for %s', async (_name, body) => {
    for (const handler of [validateEmail, validateEmailAsync]) {
      const result = await post(handler, body);
      expect(result).toMatchObject({ statusCode: 400, body: '{"error":"email is required"}' });
    }
    expect(calls).toEqual([]);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
  });

  it('answers 400 for metadata that is not an object or too large, and for an absurdly long email', async () => {
    expect(await post(validateEmail, '{"email":"a@b.test","metadata":[1]}')).toMatchObject({
      statusCode: 400,
      body: '{"error":"metadata must be a JSON object"}',
    });
    expect(await post(validateEmail, '{"email":"a@b.test","metadata":"x"}')).toMatchObject({
      body: '{"error":"metadata must be a JSON object"}',
    });
    const big = JSON.stringify({ email: 'a@b.test', metadata: { note: 'x'.repeat(20_000) } });
    expect(await post(validateEmail, big)).toMatchObject({
      statusCode: 400,
      body: '{"error":"metadata must be 16384 bytes or less as JSON"}',
    });
    const long = JSON.stringify({ email: `${'a'.repeat(10_001)}@b.test` });
    expect(await post(validateEmailAsync, long)).toMatchObject({
      statusCode: 400,
      body: '{"error":"email must be 10000 characters or less"}',
    });
  });

  it('treats "metadata": null as no metadata', async () => {
    const result = await post(validateEmail, '{"email":"jo@example.test","metadata":null}');
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '{}')).not.toHaveProperty('metadata');
  });
});

describe('POST /v1/email/validate', () => {
  it('answers 200 with the result, sorted keys, and stores it completed with its usage in one transaction', async () => {
    const result = await post(
      validateEmail,
      '{"metadata":{"z":1,"a":{"y":2,"b":3}},"email":" jo@example.test "}',
    );
    expect(result.statusCode).toBe(200);
    const body = JSON.parse(result.body ?? '');
    expect(result.body).toBe(
      JSON.stringify({
        domain: {
          hasMailServer: true,
          isCatchAll: null,
          isDisposable: false,
          isFreeProvider: false,
          mxProvider: 'other',
          mxRecords: [{ exchange: 'mx.example.test', priority: 10 }],
          name: 'example.test',
          registrableDomain: 'example.test',
          unicodeName: 'example.test',
        },
        email: ' jo@example.test ',
        mailbox: {
          isAbuseRole: false,
          isKnownComplainer: false,
          isKnownDead: false,
          isRoleAccount: false,
          localPart: ' jo',
          smtpProbe: 'off',
          smtpReply: null,
        },
        metadata: { a: { b: 3, y: 2 }, z: 1 },
        requestId: body.requestId,
        result: { reason: 'domain_ok', status: 'safe', subStatus: null },
        validatedAt: body.validatedAt,
      }),
    );
    expect(calls).toEqual([' jo@example.test ']);

    const [transaction] = ddb.commandCalls(TransactWriteCommand);
    const [put, usage] = transaction!.args[0].input.TransactItems ?? [];
    const item = put!.Put!.Item!;
    expect(item).toMatchObject({
      pk: `COMPANY#${companyId}`,
      sk: `VALIDATION#${body.requestId}`,
      status: 'completed',
      metadataJson: '{"z":1,"a":{"y":2,"b":3}}',
      validatedAt: body.validatedAt,
    });
    expect(item.ttl).toBe(Math.floor(Date.parse(item.createdAt) / 1000) + 30 * 86400);
    expect(put!.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(usage!.Update).toMatchObject({
      Key: { pk: `COMPANY#${companyId}`, sk: `USAGE#${body.validatedAt.slice(0, 7)}` },
      UpdateExpression: expect.stringContaining('ADD #validations :validations, #single :single'),
      ExpressionAttributeValues: expect.objectContaining({
        ':validations': 1,
        ':single': 1,
        ':committed': 1,
      }),
    });
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
  });

  it('answers 202 past SYNC_BUDGET_MS, stores the request pending and queues it, counting nothing yet', async () => {
    process.env.SYNC_BUDGET_MS = '20';
    resetSettings();
    setSingleEngine(slowEngine);
    const result = await post(validateEmail, '{"email":"jo@example.test","metadata":{"k":"v"}}');
    expect(result.statusCode).toBe(202);
    expect(result.headers?.['retry-after']).toBe('1');
    const body = JSON.parse(result.body ?? '');
    expect(result.body).toBe(
      `{"pollUrl":"/v1/email/validate/${body.requestId}","requestId":"${body.requestId}","retryAfter":1}`,
    );
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      Item: expect.objectContaining({
        sk: `VALIDATION#${body.requestId}`,
        status: 'pending',
        input: 'jo@example.test',
        metadataJson: '{"k":"v"}',
      }),
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, {
      QueueUrl: process.env.VALIDATIONS_QUEUE_URL,
      MessageBody: JSON.stringify({ companyId, requestId: body.requestId }),
    });
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('defers without running the engine when SYNC_BUDGET_MS is 0', async () => {
    process.env.SYNC_BUDGET_MS = '0';
    resetSettings();
    expect((await post(validateEmail, '{"email":"jo@example.test"}')).statusCode).toBe(202);
    expect(calls).toEqual([]);
  });

  it("keeps the budget inside the Lambda's remaining time", () => {
    expect(budgetMs(29_000)).toBe(26_000);
    process.env.SYNC_BUDGET_MS = '500';
    resetSettings();
    expect(budgetMs(29_000)).toBe(500);
    expect(budgetMs(2_000)).toBeLessThanOrEqual(0);
  });
});

describe('POST /v1/email/validate-async', () => {
  it('answers 202 at once: stored pending and queued, the engine untouched', async () => {
    const result = await post(validateEmailAsync, '{"email":"jo@example.test"}');
    expect(result.statusCode).toBe(202);
    const body = JSON.parse(result.body ?? '');
    expect(Object.keys(body)).toEqual(['pollUrl', 'requestId', 'retryAfter']);
    expect(body.pollUrl).toBe(`/v1/email/validate/${body.requestId}`);
    expect(calls).toEqual([]);
    expect(ddb).toHaveReceivedCommandWith(PutCommand, {
      Item: expect.objectContaining({
        status: 'pending',
        input: 'jo@example.test',
        pk: `COMPANY#${companyId}`,
      }),
    });
    expect(sqs).toHaveReceivedCommandTimes(SendMessageCommand, 1);
  });

  it('says retry after 5 s when SMTP probing makes validations slower', async () => {
    process.env.SMTP_PROBE = 'true';
    resetSettings();
    try {
      const body = JSON.parse((await post(validateEmailAsync, '{"email":"jo@example.test"}')).body ?? '');
      expect(body.retryAfter).toBe(5);
    } finally {
      delete process.env.SMTP_PROBE;
      resetSettings();
    }
  });
});

describe('quota', () => {
  it('answers 402 on both endpoints before any work when neither quota nor credits remain', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        { pk: `COMPANY#${companyId}`, sk: 'USAGE#PLAN', type: 'plan', monthlyQuota: 10, creditsAdded: 2 },
        {
          pk: `COMPANY#${companyId}`,
          sk: `USAGE#${new Date().toISOString().slice(0, 7)}`,
          type: 'usage',
          validations: 12,
          single: 12,
          committed: 12,
        },
      ],
    });
    for (const handler of [validateEmail, validateEmailAsync]) {
      const result = await post(handler, '{"email":"jo@example.test"}');
      expect(result.statusCode).toBe(402);
      expect(result.body).toBe('{"error":"Validation quota exceeded"}');
    }
    expect(calls).toEqual([]);
    expect(ddb).not.toHaveReceivedCommand(PutCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
    expect(sqs).not.toHaveReceivedCommand(SendMessageCommand);
  });

  it('lets the validation through while one credit is left', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        { pk: `COMPANY#${companyId}`, sk: 'USAGE#PLAN', type: 'plan', monthlyQuota: 10, creditsAdded: 3 },
        {
          pk: `COMPANY#${companyId}`,
          sk: `USAGE#${new Date().toISOString().slice(0, 7)}`,
          type: 'usage',
          validations: 12,
          committed: 12,
        },
      ],
    });
    expect((await post(validateEmail, '{"email":"jo@example.test"}')).statusCode).toBe(200);
  });
});

describe('GET /v1/email/validate/{requestId}', () => {
  const storedKey = { pk: `COMPANY#${companyId}`, sk: `VALIDATION#${requestId}` };
  const stored = (item: Record<string, unknown>) =>
    mockStoredValidationRequest(ddb, { companyId, requestId }, item);

  it("answers 200 with the stored result and the metadata, read consistently under the key's company", async () => {
    stored({
      status: 'completed',
      validatedAt: '2026-11-21T10:00:00.000Z',
      metadataJson: '{"big":1e200,"deep":[[[1]]]}',
      outcome: { ...resultFor('jo@example.test'), didYouMean: 'jo@example.com' },
    });
    const result = await poll(requestId);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '')).toEqual({
      ...resultFor('jo@example.test'),
      didYouMean: 'jo@example.com',
      metadata: { big: 1e200, deep: [[[1]]] },
      requestId,
      validatedAt: '2026-11-21T10:00:00.000Z',
    });
    expect(ddb).toHaveReceivedCommandWith(GetCommand, { Key: storedKey, ConsistentRead: true });
  });

  it('answers 202 with the poll URL while pending', async () => {
    stored({ status: 'pending', input: 'jo@example.test' });
    const result = await poll(requestId);
    expect(result.statusCode).toBe(202);
    expect(result.headers?.['retry-after']).toBe('1');
    expect(result.body).toBe(
      `{"pollUrl":"/v1/email/validate/${requestId}","requestId":"${requestId}","retryAfter":1}`,
    );
  });

  it('answers 500 for a failed request and for one pending beyond every retry window', async () => {
    stored({ status: 'failed', error: 'Validation failed; submit the address again' });
    expect(await poll(requestId)).toMatchObject({
      statusCode: 500,
      body: '{"error":"Validation failed; submit the address again"}',
    });
    stored({
      status: 'pending',
      input: 'jo@example.test',
      createdAt: new Date(Date.now() - 2 * 3600_000).toISOString(),
    });
    expect(await poll(requestId)).toMatchObject({
      statusCode: 500,
      body: '{"error":"Validation did not complete in time; submit the address again"}',
    });
  });

  it("answers 404 for an unknown id (or another company's: the key is per company) and a malformed one", async () => {
    expect(await poll(requestId)).toMatchObject({
      statusCode: 404,
      body: '{"error":"Validation request not found"}',
    });
    const reads = ddb.commandCalls(GetCommand).length;
    expect(await poll('../../etc')).toMatchObject({ statusCode: 404 });
    expect(ddb.commandCalls(GetCommand).length).toBe(reads + 1); // the key lookup only
  });
});

describe('the SOCKS pool kept in a secret (SMTP_SOCKS_PROXY_SECRET)', () => {
  const secrets = mockClient(SecretsManagerClient);
  const pool = 'socks5://probe:s3cret@203.0.113.10:1080';
  let seen: (string | undefined)[];

  beforeEach(() => {
    secrets.reset();
    seen = [];
    process.env.SMTP_SOCKS_PROXY_SECRET = 'secretsmanager:mailvet/socks-pool';
    // Earlier requests of this process loaded "no secret": a new process (cold start) reads it.
    resetSecretSettings();
    resetSettings();
    setSingleEngine({
      validate: async (raw) => {
        seen.push(settings().SMTP_SOCKS_PROXY);
        return resultFor(String(raw));
      },
    });
  });
  afterEach(() => {
    delete process.env.SMTP_SOCKS_PROXY_SECRET;
    resetSecretSettings();
    resetSecretClients();
    setSingleEngine(instantEngine);
  });

  it('is read once, before the route validates, and never lands in process.env', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'mailvet/socks-pool' }).resolves({ SecretString: pool });
    expect((await post(validateEmail, '{"email":"jo@example.test"}')).statusCode).toBe(200);
    expect((await post(validateEmail, '{"email":"al@example.test"}')).statusCode).toBe(200);
    expect(seen).toEqual([pool, pool]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(process.env.SMTP_SOCKS_PROXY).toBeUndefined();
  });

  it('answers a plain 500 when it cannot be read, and reads it again on the next request', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('AccessDeniedException'))
      .resolves({ SecretString: pool });
    const failed = await post(validateEmail, '{"email":"jo@example.test"}');
    expect(failed).toMatchObject({ statusCode: 500, body: '{"error":"Internal server error"}' });
    expect(seen).toEqual([]);
    expect((await post(validateEmail, '{"email":"jo@example.test"}')).statusCode).toBe(200);
    expect(seen).toEqual([pool]);
  });
});
