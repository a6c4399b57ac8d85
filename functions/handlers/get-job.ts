// GET /v1/email/validate-file/{jobId}: the job's status and progress (404 for unknown or foreign jobs).
import { readJob } from '../domain/bulk/jobs';
import { apiHandler, type Route } from '../http/api-handler';

const getJobRoute: Route = async (request) => ({
  statusCode: 200,
  body: await readJob(request.principal.companyId, request.pathParameters.jobId ?? ''),
});

export const handler = apiHandler(getJobRoute);
