// X-Ray tracing of the AWS SDK clients (Powertools for AWS Lambda's Tracer): each AWS call of a function
// becomes a subsegment of its invocation's trace. Tracer turns itself off outside Lambda, so the local
// runtime, the tests and the command-line tools trace nothing and need no X-Ray daemon.
import { Tracer } from '@aws-lambda-powertools/tracer';
import { serviceName } from '../log';

// Outgoing HTTP (webhooks) is not patched: only the SDK clients are traced.
const tracer = new Tracer({ serviceName, captureHTTPsRequests: false });

/** The client with every call traced in Lambda; the same client, untouched, elsewhere. */
export function traced<T>(client: T): T {
  return tracer.captureAWSv3Client(client);
}
