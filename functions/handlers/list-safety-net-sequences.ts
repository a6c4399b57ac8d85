// GET /v1/safety-net-sequences: one row per sequence and owner.
import { apiHandler, type Route } from '../http/api-handler';
import { sequenceServices } from '../domain/workspace/model';
import { booleanParam, enumParam, listQuery, parseQuery } from '../domain/workspace/query';
import { listSafetyNetSequences } from '../domain/workspace/safety-net';

export const querySchema = listQuery({
  activated: booleanParam('activated').optional(),
  service: enumParam('service', sequenceServices).optional(),
});

export const listSafetyNetSequencesRoute = (): Route => async (request) => {
  const query = parseQuery(querySchema, request.query);
  return { statusCode: 200, body: await listSafetyNetSequences(request.principal.companyId, query) };
};

export const handler = apiHandler(listSafetyNetSequencesRoute());
