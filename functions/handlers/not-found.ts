// API Gateway's $default route: any path or method the API does not define. Deliberately outside the
// API pipeline (functions/http/api-handler.ts): no key to check, nothing to log, and its bundle stays
// at a few kilobytes (the pipeline's logger and settings bring zod).
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { json } from '../http/response';

const notFound = async (): Promise<APIGatewayProxyStructuredResultV2> => json(404, { error: 'Not found' });

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>().handler(notFound);
