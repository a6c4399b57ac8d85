// GET /v1/connected-mailboxes: connected mailboxes with their reputation over a named window.
import { apiHandler, type Route } from '../http/api-handler';
import { listConnectedMailboxes, listConnectedMailboxesQuery } from '../domain/workspace/connected-mailboxes';
import { resolveReputationRange, systemClock, type Clock } from '../domain/workspace/dates';
import { parseQuery } from '../domain/workspace/query';

export const listConnectedMailboxesRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const query = parseQuery(listConnectedMailboxesQuery, request.query);
    const range = resolveReputationRange(query.reputationRange, clock());
    return {
      statusCode: 200,
      body: await listConnectedMailboxes(request.principal.companyId, { ...query, range }),
    };
  };

export const handler = apiHandler(listConnectedMailboxesRoute());
