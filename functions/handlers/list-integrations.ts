// GET /v1/integrations: the company's Safety Net connections, their state and last sync.
import { apiHandler, type Route } from '../http/api-handler';
import { listConnections } from '../domain/safety-net/connections';

const listIntegrationsRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listConnections(request.principal.companyId),
});

export const handler = apiHandler(listIntegrationsRoute);
