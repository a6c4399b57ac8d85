// GET /v1/users/{id}: one active user (invited users have no id).
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { isUuid } from '../domain/workspace/bodies';
import { getUser } from '../domain/workspace/users';

export const getUserRoute = (): Route => async (request) => {
  const id = request.pathParameters.id;
  if (!isUuid(id)) throw new NotFoundError('User not found');
  return { statusCode: 200, body: await getUser(request.principal.companyId, id.toLowerCase()) };
};

export const handler = apiHandler(getUserRoute());
