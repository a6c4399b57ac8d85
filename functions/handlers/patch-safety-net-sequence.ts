// PATCH /v1/safety-net-sequences/{id}: switch a sequence on or off for every owner it appears under.
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { requirePermission } from '../domain/accounts/accounts';
import { isUuid, parseActivationBody } from '../domain/workspace/bodies';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { patchSafetyNetSequence } from '../domain/workspace/safety-net';

export const patchSafetyNetSequenceRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    // Permission first (403), then the body (400).
    const permitted = await requirePermission(request.principal, 'toggleSequences');
    const activated = parseActivationBody(request.body);
    const id = request.pathParameters.id;
    if (!isUuid(id)) throw new NotFoundError('Safety Net sequence not found');
    return {
      statusCode: 200,
      body: await patchSafetyNetSequence(permitted, id.toLowerCase(), activated, clock()),
    };
  };

export const handler = apiHandler(patchSafetyNetSequenceRoute());
