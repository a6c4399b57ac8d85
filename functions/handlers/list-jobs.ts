// GET /v1/email/validate-file: the company's bulk jobs, newest first, paged and optionally filtered.
import { listJobs } from '../domain/bulk/jobs';
import { apiHandler, type Route } from '../http/api-handler';

const listJobsRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listJobs(request.principal.companyId, request.query),
});

export const handler = apiHandler(listJobsRoute);
