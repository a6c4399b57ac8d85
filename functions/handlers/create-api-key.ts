// POST /v1/api-keys: a new API key for the calling admin, shown once in the answer.
import { apiHandler, type Route } from '../http/api-handler';
import { createOwnApiKey, parseCreateApiKeyBody } from '../domain/people/api-keys';

const createApiKeyRoute: Route = async (request) => ({
  statusCode: 201,
  body: await createOwnApiKey(request.principal, parseCreateApiKeyBody(request.body)),
});

export const handler = apiHandler(createApiKeyRoute);
