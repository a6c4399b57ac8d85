// The one way a JSON response is written: sorted keys and a content type (no SDK imports, so the
// smallest handlers stay small).
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { sortedJson } from '../json';

export function json(
  statusCode: number,
  body?: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: sortedJson(body) }),
  };
}
