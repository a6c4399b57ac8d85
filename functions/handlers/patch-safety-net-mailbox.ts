// PATCH /v1/safety-net-mailboxes/{id}: switch the Safety Net on or off for a mailbox (no permission needed).
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { isUuid, parseActivationBody } from '../domain/workspace/bodies';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { patchSafetyNetMailbox } from '../domain/workspace/safety-net';

export const patchSafetyNetMailboxRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const activated = parseActivationBody(request.body);
    const id = request.pathParameters.id;
    if (!isUuid(id)) throw new NotFoundError('Safety Net mailbox not found');
    const body = await patchSafetyNetMailbox(
      request.principal.companyId,
      id.toLowerCase(),
      activated,
      clock(),
    );
    return { statusCode: 200, body };
  };

export const handler = apiHandler(patchSafetyNetMailboxRoute());
