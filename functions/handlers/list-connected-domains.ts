// GET /v1/connected-domains: the sending domains of the connected mailboxes.
import { apiHandler, type Route } from '../http/api-handler';
import { listConnectedDomains, listConnectedDomainsQuery } from '../domain/workspace/connected-domains';
import { parseQuery } from '../domain/workspace/query';

export const listConnectedDomainsRoute = (): Route => async (request) => {
  const query = parseQuery(listConnectedDomainsQuery, request.query);
  return { statusCode: 200, body: await listConnectedDomains(request.principal.companyId, query) };
};

export const handler = apiHandler(listConnectedDomainsRoute());
