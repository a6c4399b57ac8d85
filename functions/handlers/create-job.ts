// POST /v1/email/validate-file: validate the body, create the job, answer 202 with its upload URL.
import { createJob } from '../domain/bulk/jobs';
import { parseCreateJobRequest } from '../domain/bulk/create-job-request';
import { apiHandler, type Route } from '../http/api-handler';
import { idempotent } from '../http/idempotency';

export const createJobRoute: Route = async (request) => {
  const body = parseCreateJobRequest(request.body);
  const created = await createJob(request.principal.companyId, body);
  request.log.info('bulk job created', { jobId: created.jobId });
  return { statusCode: 202, body: created };
};

export const handler = apiHandler(idempotent('createJob', createJobRoute));
