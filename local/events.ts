// AWS-shaped event and context builders, shared by the local runtime, `npm run invoke` and the tests.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface ApiEventInput {
  method: string;
  path: string;
  routeKey?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  body?: string;
  requestId?: string;
}

export function apiEvent(input: ApiEventInput): APIGatewayProxyEventV2 {
  const requestId = input.requestId ?? `req-${Math.random().toString(36).slice(2)}`;
  const query = input.query ?? {};
  const rawQueryString = new URLSearchParams(query).toString();
  return {
    version: '2.0',
    routeKey: input.routeKey ?? `${input.method} ${input.path}`,
    rawPath: input.path,
    rawQueryString,
    headers: Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(input.pathParameters ? { pathParameters: input.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: input.method,
        path: input.path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId,
      routeKey: input.routeKey ?? `${input.method} ${input.path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(input.body !== undefined ? { body: input.body } : {}),
    isBase64Encoded: false,
  };
}

export function lambdaContext(functionName = 'test', timeoutMs = 30_000, memoryMb = 512): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** What EventBridge Scheduler sends a scheduled function (functions/middlewares/scheduled.ts). */
export function scheduledRunEvent(schedule: string, time: Date): { schedule: string; time: string } {
  // Scheduler's <aws.scheduler.scheduled-time> has whole seconds: 2026-01-01T06:00:00Z.
  return { schedule, time: `${time.toISOString().slice(0, 19)}Z` };
}
