// GET /v1/connected-mailboxes/{id}: one mailbox with its daily reputation history.
import { apiHandler, type Route } from '../http/api-handler';
import { NotFoundError } from '../errors';
import { isUuid } from '../domain/workspace/bodies';
import { getConnectedMailbox } from '../domain/workspace/connected-mailboxes';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { parseDetailWindow } from '../domain/workspace/query';

export const getConnectedMailboxRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const window = parseDetailWindow(request.query, clock());
    const id = request.pathParameters.id;
    if (!isUuid(id)) throw new NotFoundError('Connected mailbox not found');
    return {
      statusCode: 200,
      body: await getConnectedMailbox(request.principal.companyId, id.toLowerCase(), window),
    };
  };

export const handler = apiHandler(getConnectedMailboxRoute());
