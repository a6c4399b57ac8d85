// GET /v1/usage: the company's validations, quota and credits for a month (any key of the company).
import { apiHandler, type Route } from '../http/api-handler';
import { parseQuery } from '../domain/workspace/query';
import { readUsage, usageQuery } from '../domain/usage';

const getUsageRoute: Route = async (request) => ({
  statusCode: 200,
  body: await readUsage(request.principal.companyId, parseQuery(usageQuery, request.query)),
});

export const handler = apiHandler(getUsageRoute);
