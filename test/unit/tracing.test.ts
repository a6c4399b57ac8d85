// The SDK clients go through Powertools' Tracer: captured (an X-Ray middleware on each call) in Lambda,
// untouched elsewhere, so the local runtime and the tests trace nothing and need no X-Ray daemon.
import { SQSClient } from '@aws-sdk/client-sqs';

const xrayMiddleware = (client: SQSClient) =>
  client.middlewareStack.identify().filter((name) => name.startsWith('XRaySDKInstrumentation'));

function tracedIn(env: Record<string, string | undefined>): SQSClient {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    let client: SQSClient | undefined;
    jest.isolateModules(() => {
      type TracerModule = typeof import('../../functions/clients/tracer');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { traced } = require('../../functions/clients/tracer') as TracerModule;
      client = traced(new SQSClient({ region: 'us-east-1' }));
    });
    return client!;
  } finally {
    process.env = saved;
  }
}

it('leaves the clients untouched outside Lambda', () => {
  expect(xrayMiddleware(tracedIn({ AWS_EXECUTION_ENV: '' }))).toEqual([]);
});

it('traces every call of a client in Lambda', () => {
  const client = tracedIn({
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs20.x',
    AWS_LAMBDA_FUNCTION_NAME: 'validateChunk',
  });
  expect(xrayMiddleware(client)).toHaveLength(1);
});
