// GET /v1/users: active users and pending (unexpired) invites.
import { apiHandler, type Route } from '../http/api-handler';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { userStatuses } from '../domain/workspace/model';
import { enumParam, listQuery, parseQuery } from '../domain/workspace/query';
import { listUsers } from '../domain/workspace/users';

export const querySchema = listQuery({ status: enumParam('status', userStatuses).optional() });

export const listUsersRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const query = parseQuery(querySchema, request.query);
    return { statusCode: 200, body: await listUsers(request.principal.companyId, query, clock()) };
  };

export const handler = apiHandler(listUsersRoute());
