// DELETE /v1/email/validate-file/{jobId}: cancel the job, delete its files and the job; 204.
import { deleteJob } from '../domain/bulk/jobs';
import { apiHandler, type Route } from '../http/api-handler';

const deleteJobRoute: Route = async (request) => {
  await deleteJob(request.principal.companyId, request.pathParameters.jobId ?? '');
  request.log.info('bulk job deleted', { jobId: request.pathParameters.jobId });
  return { statusCode: 204 };
};

export const handler = apiHandler(deleteJobRoute);
