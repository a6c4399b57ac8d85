// GET /v1/users: active users and pending (unexpired) invites.
import { apiHandler, type Route } from '../http/api-handler';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { parseQuery } from '../domain/workspace/query';
import { listUsers, listUsersQuery } from '../domain/workspace/users';

export const listUsersRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const query = parseQuery(listUsersQuery, request.query);
    return { statusCode: 200, body: await listUsers(request.principal.companyId, query, clock()) };
  };

export const handler = apiHandler(listUsersRoute());
