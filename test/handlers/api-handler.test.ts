import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { authenticate } from '../../functions/domain/accounts/accounts';
import { hashApiKey } from '../../functions/domain/accounts/secrets';
import { apiHandler, type Route } from '../../functions/http/api-handler';
import { NotFoundError, ServiceUnavailableError } from '../../functions/errors';
import { Logger } from '../../functions/log';
import { pendingCommandCounts } from '../../functions/store/dynamodb';
import { apiEvent, lambdaContext } from '../../local/events';
import { storedApiKey } from '../helpers/items';

const ddb = mockClient(DynamoDBDocumentClient);
const key = 'mv_live_test';
const principalItem = { companyId: 'c1', userId: 'u1', userEmail: 'a@x.test', keyId: 'k1' };

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb
    .on(GetCommand, { Key: { pk: `APIKEY#${hashApiKey(key)}`, sk: 'APIKEY' } })
    .resolves({ Item: storedApiKey(hashApiKey(key), principalItem) });
  ddb.on(UpdateCommand).resolves({});
});

const echo: Route = async (request) => ({ statusCode: 200, body: { z: 1, a: { y: 2, b: request.body } } });
const call = (route: Route, headers: Record<string, string>, body?: string) =>
  apiHandler(route)(apiEvent({ method: 'POST', path: '/x', headers, body }), lambdaContext());

describe('apiHandler', () => {
  it('answers 401 with the fixed text when the key is missing', async () => {
    const result = await call(echo, {});
    expect(result.statusCode).toBe(401);
    expect(result.body).toBe('{"error":"Missing API key"}');
  });

  it('answers 403 for an unknown key', async () => {
    const result = await call(echo, { 'x-api-key': 'wrong' });
    expect(result.statusCode).toBe(403);
    expect(result.body).toBe('{"error":"Invalid API key"}');
  });

  it('answers 403 for a revoked key', async () => {
    ddb.on(GetCommand).resolves({
      Item: { ...storedApiKey(hashApiKey(key), principalItem), revokedAt: '2026-01-01T00:00:00.000Z' },
    });
    const result = await call(echo, { 'X-Api-Key': key });
    expect(result.statusCode).toBe(403);
  });

  it('sorts keys at every level of the body', async () => {
    const result = await call(echo, { 'x-api-key': key }, '{"q":1,"c":[{"b":1,"a":2}]}');
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('{"a":{"b":{"c":[{"a":2,"b":1}],"q":1},"y":2},"z":1}');
  });

  it('answers 400 for a malformed JSON body', async () => {
    const result = await call(echo, { 'x-api-key': key }, '{nope');
    expect(result).toMatchObject({ statusCode: 400, body: '{"error":"Invalid JSON body"}' });
  });

  it('answers 429 with Retry-After 1 when the rate counter condition fails', async () => {
    const failure = Object.assign(new Error('The conditional request failed'), {
      name: 'ConditionalCheckFailedException',
    });
    ddb.on(UpdateCommand).rejects(failure);
    const result = await call(echo, { 'x-api-key': key });
    expect(result).toMatchObject({ statusCode: 429, body: '{"error":"Rate limit exceeded"}' });
    expect(result.headers?.['retry-after']).toBe('1');
  });

  it('maps typed errors to their status and message', async () => {
    const result = await call(
      async () => {
        throw new NotFoundError('Job not found');
      },
      { 'x-api-key': key },
    );
    expect(result).toMatchObject({ statusCode: 404, body: '{"error":"Job not found"}' });
  });

  it('never exposes internals in a 500', async () => {
    const result = await call(
      async () => {
        throw new Error('secret stack detail');
      },
      { 'x-api-key': key },
    );
    expect(result).toMatchObject({ statusCode: 500, body: '{"error":"Internal server error"}' });
  });

  it('answers 503 with Retry-After when DynamoDB stays throttled', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    const result = await call(echo, { 'x-api-key': key });
    expect(result.statusCode).toBe(503);
    expect(result.body).toBe('{"error":"Service temporarily unavailable"}');
    expect(result.headers?.['retry-after']).toBeDefined();
  });

  it('logs a throttled table as a warning, not as a failed request', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const error = jest.spyOn(Logger.prototype, 'error');
    try {
      ddb.on(GetCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
      expect((await call(echo, { 'x-api-key': key })).statusCode).toBe(503);
      expect(warn).toHaveBeenCalledWith('dependency throttled', { error: 'ThrottlingException' });
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('still logs any other 503 as a failed request', async () => {
    const error = jest.spyOn(Logger.prototype, 'error');
    try {
      const busy: Route = async () => {
        throw new ServiceUnavailableError(5);
      };
      expect((await call(busy, { 'x-api-key': key })).statusCode).toBe(503);
      expect(error).toHaveBeenCalledWith('request failed', expect.any(ServiceUnavailableError));
    } finally {
      error.mockRestore();
    }
  });

  it('writes the DynamoDB command counts of the invocation when the request ends', async () => {
    await call(echo, { 'x-api-key': key });
    expect(pendingCommandCounts().size).toBe(0);
  });
});

describe('authentication cache', () => {
  it('reads a key once within AUTH_CACHE_SECONDS and again after it', async () => {
    const rawKey = `mv_live_cache_${Date.now()}`;
    ddb.on(GetCommand).resolves({ Item: storedApiKey(hashApiKey(key), principalItem) });
    await authenticate(rawKey, 1);
    await authenticate(rawKey, 1);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    ddb.on(GetCommand).resolves({
      Item: { ...storedApiKey(hashApiKey(key), principalItem), revokedAt: '2026-11-01T00:00:00.000Z' },
    });
    await expect(authenticate(rawKey, 1)).rejects.toMatchObject({ statusCode: 403 });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
  });

  it('reads the key on every request when the cache is off', async () => {
    await authenticate(key, 0);
    await authenticate(key, 0);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
  });
});
