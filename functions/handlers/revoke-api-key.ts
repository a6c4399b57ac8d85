// DELETE /v1/api-keys/{id}: revoke one of the calling admin's own API keys.
import { apiHandler, type Route } from '../http/api-handler';
import { revokeOwnApiKey } from '../domain/people/api-keys';

const revokeApiKeyRoute: Route = async (request) => ({
  statusCode: 200,
  body: await revokeOwnApiKey(request.principal, request.pathParameters.id ?? ''),
});

export const handler = apiHandler(revokeApiKeyRoute);
