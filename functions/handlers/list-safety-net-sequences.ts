// GET /v1/safety-net-sequences: one row per sequence and owner.
import { apiHandler, type Route } from '../http/api-handler';
import { parseQuery } from '../domain/workspace/query';
import { listSafetyNetSequences, listSafetyNetSequencesQuery } from '../domain/workspace/safety-net';

export const listSafetyNetSequencesRoute = (): Route => async (request) => {
  const query = parseQuery(listSafetyNetSequencesQuery, request.query);
  return { statusCode: 200, body: await listSafetyNetSequences(request.principal.companyId, query) };
};

export const handler = apiHandler(listSafetyNetSequencesRoute());
