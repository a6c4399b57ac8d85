// GET /v1/safety-net-sequences/{id}: one sequence row (one owner of a sequence).
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { isUuid } from '../domain/workspace/bodies';
import { getSafetyNetSequence } from '../domain/workspace/safety-net';

export const getSafetyNetSequenceRoute = (): Route => async (request) => {
  const id = request.pathParameters.id;
  if (!isUuid(id)) throw new NotFoundError('Safety Net sequence not found');
  return { statusCode: 200, body: await getSafetyNetSequence(request.principal.companyId, id.toLowerCase()) };
};

export const handler = apiHandler(getSafetyNetSequenceRoute());
