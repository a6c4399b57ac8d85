// GET /v1/email/validate-file: the company's bulk jobs, newest first, paged and optionally filtered.
import { listJobs, listJobsQuery } from '../domain/bulk/jobs';
import { parseQuery } from '../domain/workspace/query';
import { apiHandler, type Route } from '../http/api-handler';

const listJobsRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listJobs(request.principal.companyId, parseQuery(listJobsQuery, request.query)),
});

export const handler = apiHandler(listJobsRoute);
