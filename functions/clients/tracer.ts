// X-Ray tracing of the AWS SDK clients (Powertools for AWS Lambda's Tracer): each AWS call of a function
// becomes a subsegment of its invocation's trace. Tracer turns itself off outside Lambda, so the local
// runtime, the tests and the command-line tools trace nothing and need no X-Ray daemon.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { serviceName } from '../log';

let tracer: Tracer | undefined;

/**
 * Loaded in Lambda only (AWS_EXECUTION_ENV set, Tracer's own test): importing the X-Ray SDK switches on
 * an async hook with destroy tracking for every promise of the process, about a tenth of the local
 * API's CPU, for tracing that is off outside Lambda anyway.
 */
function lambdaTracer(): Tracer | undefined {
  if (!process.env.AWS_EXECUTION_ENV) return undefined;
  if (!tracer) {
    type Powertools = typeof import('@aws-lambda-powertools/tracer');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const powertools = require('@aws-lambda-powertools/tracer') as Powertools;
    // Outgoing HTTP (webhooks) is not patched: only the SDK clients are traced.
    tracer = new powertools.Tracer({ serviceName, captureHTTPsRequests: false });
  }
  return tracer;
}

/** The client with every call traced in Lambda; the same client, untouched, elsewhere. */
export function traced<T>(client: T): T {
  return lambdaTracer()?.captureAWSv3Client(client) ?? client;
}
