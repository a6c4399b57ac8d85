// The one way a JSON response is written: sorted keys, a content type and `nosniff`, so no browser ever
// reads an answer as anything but what it says it is (no SDK imports, so the smallest handlers stay
// small).
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { sortedJson } from '../json';

/** Sent with every answer of the API, by every function. */
export const securityHeaders = { 'x-content-type-options': 'nosniff' } as const;

export function json(
  statusCode: number,
  body?: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers:
      body === undefined
        ? { ...headers, ...securityHeaders }
        : { 'content-type': 'application/json', ...headers, ...securityHeaders },
    ...(body === undefined ? {} : { body: sortedJson(body) }),
  };
}
