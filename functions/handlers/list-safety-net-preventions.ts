// GET /v1/safety-net/preventions: the emails the Safety Net stopped, newest first.
import { apiHandler, type Route } from '../http/api-handler';
import { parseQuery } from '../domain/workspace/query';
import { listPreventions, listPreventionsQuery } from '../domain/safety-net/records';

const listPreventionsRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listPreventions(request.principal.companyId, parseQuery(listPreventionsQuery, request.query)),
});

export const handler = apiHandler(listPreventionsRoute);
