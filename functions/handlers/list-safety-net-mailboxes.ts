// GET /v1/safety-net-mailboxes: mailboxes synced from Outreach and Salesloft.
import { apiHandler, type Route } from '../http/api-handler';
import { parseQuery } from '../domain/workspace/query';
import { listSafetyNetMailboxes, listSafetyNetMailboxesQuery } from '../domain/workspace/safety-net';

export const listSafetyNetMailboxesRoute = (): Route => async (request) => {
  const query = parseQuery(listSafetyNetMailboxesQuery, request.query);
  return { statusCode: 200, body: await listSafetyNetMailboxes(request.principal.companyId, query) };
};

export const handler = apiHandler(listSafetyNetMailboxesRoute());
