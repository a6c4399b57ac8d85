// GET /v1/safety-net-mailboxes: mailboxes synced from Outreach and Salesloft.
import { apiHandler, type Route } from '../http/api-handler';
import { booleanParam, listQuery, parseQuery } from '../domain/workspace/query';
import { listSafetyNetMailboxes } from '../domain/workspace/safety-net';

export const querySchema = listQuery({ activated: booleanParam('activated').optional() });

export const listSafetyNetMailboxesRoute = (): Route => async (request) => {
  const query = parseQuery(querySchema, request.query);
  return { statusCode: 200, body: await listSafetyNetMailboxes(request.principal.companyId, query) };
};

export const handler = apiHandler(listSafetyNetMailboxesRoute());
