// GET /v1/connected-domains/{domainName}: a domain's daily reputation history.
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { getConnectedDomain } from '../domain/workspace/connected-domains';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { parseDetailWindow } from '../domain/workspace/query';

export const getConnectedDomainRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const window = parseDetailWindow(request.query, clock());
    const domainName = request.pathParameters.domainName;
    // A DNS name has at most 253 characters; a longer one names nothing (and overflows the table's key).
    if (!domainName || domainName.length > 253) throw new NotFoundError('Connected domain not found');
    return {
      statusCode: 200,
      body: await getConnectedDomain(request.principal.companyId, domainName, window),
    };
  };

export const handler = apiHandler(getConnectedDomainRoute());
