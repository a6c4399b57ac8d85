// POST /v1/email/validate-batch: 200 with one result (or poll URL) per address, in input order.
import { parseBatchRequestBody, validateBatch } from '../domain/single-validation/validate-batch';
import { apiHandler, type Route } from '../http/api-handler';
import { secretSettings } from '../middlewares/secret-settings';
import { budgetMs } from '../domain/single-validation/budget';

const validateEmailBatchRoute: Route = async (request) => {
  const body = parseBatchRequestBody(request.body);
  const response = await validateBatch(request.principal.companyId, body, budgetMs(request.remainingMs()));
  return { statusCode: 200, body: response };
};

// The SOCKS pool of the mailbox probes, read before the route runs (as the single endpoint).
export const handler = apiHandler(validateEmailBatchRoute).use(secretSettings());
