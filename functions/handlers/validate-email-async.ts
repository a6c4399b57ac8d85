// POST /v1/email/validate-async: 202 with a poll URL at once; the validations queue does the work.
import { parseValidationRequestBody } from '../domain/single-validation/request-body';
import { acceptValidation } from '../domain/single-validation/validate-async';
import { apiHandler, type Route } from '../http/api-handler';
import { idempotent } from '../http/idempotency';

const validateEmailAsyncRoute: Route = async (request) => {
  const body = parseValidationRequestBody(request.body);
  const accepted = await acceptValidation(request.principal.companyId, body);
  return { statusCode: 202, body: accepted, headers: { 'retry-after': String(accepted.retryAfter) } };
};

export const handler = apiHandler(idempotent('validateEmailAsync', validateEmailAsyncRoute));
