// GET /v1/email/validate/{requestId}: 202 in progress, 200 result, 500 failed, 404 unknown or foreign.
import { pollValidation } from '../domain/single-validation/poll';
import { apiHandler, type Route } from '../http/api-handler';

const getValidationRoute: Route = async (request) => {
  const outcome = await pollValidation(request.principal.companyId, request.pathParameters.requestId ?? '');
  switch (outcome.kind) {
    case 'completed':
      return { statusCode: 200, body: outcome.body };
    case 'in_progress':
      return {
        statusCode: 202,
        body: outcome.body,
        headers: { 'retry-after': String(outcome.body.retryAfter) },
      };
    case 'failed':
      return { statusCode: 500, body: { error: outcome.error } };
  }
};

export const handler = apiHandler(getValidationRoute);
