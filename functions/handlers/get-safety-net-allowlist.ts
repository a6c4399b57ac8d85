// GET /v1/safety-net/allowlist (admin): {emails}, the addresses the Safety Net never stops.
import { apiHandler, type Route } from '../http/api-handler';
import { listAllowed } from '../domain/safety-net/records';

const getAllowlistRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listAllowed(request.principal),
});

export const handler = apiHandler(getAllowlistRoute);
