// POST /v1/email/validate: 200 with the result within the sync budget, else 202 with a poll URL.
import { reducedResult } from '../domain/accounts/publishable';
import { parseValidationRequestBody } from '../domain/single-validation/request-body';
import { validateWithinBudget } from '../domain/single-validation/validate-sync';
import { apiHandler, type Route } from '../http/api-handler';
import { secretSettings } from '../middlewares/secret-settings';
import { budgetMs } from '../domain/single-validation/budget';

export { budgetMs };

const validateEmailRoute: Route = async (request) => {
  const body = parseValidationRequestBody(request.body);
  const outcome = await validateWithinBudget(
    request.principal.companyId,
    body,
    budgetMs(request.remainingMs()),
  );
  // A publishable key (a web page's widget) gets the verdict only, and no poll URL it could not use.
  const publishable = request.principal.publishableOrigin !== undefined;
  if (outcome.kind === 'completed')
    return { statusCode: 200, body: publishable ? reducedResult(outcome.body) : outcome.body };
  if (publishable) return { statusCode: 202, body: { email: body.email } };
  return {
    statusCode: 202,
    body: outcome.body,
    headers: { 'retry-after': String(outcome.body.retryAfter) },
  };
};

// The SOCKS pool of the mailbox probes, read before the route runs (the only API route that probes).
export const handler = apiHandler(validateEmailRoute).use(secretSettings());
