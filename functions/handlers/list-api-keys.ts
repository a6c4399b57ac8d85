// GET /v1/api-keys: the calling admin's own API keys (never the keys themselves).
import { apiHandler, type Route } from '../http/api-handler';
import { listOwnApiKeys } from '../domain/people/api-keys';

const listApiKeysRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listOwnApiKeys(request.principal),
});

export const handler = apiHandler(listApiKeysRoute);
