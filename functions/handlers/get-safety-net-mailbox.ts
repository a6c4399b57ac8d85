// GET /v1/safety-net-mailboxes/{id}: one Safety Net mailbox.
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { isUuid } from '../domain/workspace/bodies';
import { getSafetyNetMailbox } from '../domain/workspace/safety-net';

export const getSafetyNetMailboxRoute = (): Route => async (request) => {
  const id = request.pathParameters.id;
  if (!isUuid(id)) throw new NotFoundError('Safety Net mailbox not found');
  return { statusCode: 200, body: await getSafetyNetMailbox(request.principal.companyId, id.toLowerCase()) };
};

export const handler = apiHandler(getSafetyNetMailboxRoute());
