// POST /v1/email/validate-file/{jobId}/run: run a completed estimate's file in full as a new job; 201.
import { runEstimate } from '../domain/bulk/estimate/run-estimate';
import { apiHandler, type Route } from '../http/api-handler';
import { idempotent } from '../http/idempotency';

const runEstimateRoute: Route = async (request) => {
  const created = await runEstimate(request.principal.companyId, request.pathParameters.jobId ?? '');
  request.log.info('estimate run in full', { jobId: request.pathParameters.jobId, runJobId: created.jobId });
  return { statusCode: 201, body: created };
};

export const handler = apiHandler(idempotent('runEstimate', runEstimateRoute));
