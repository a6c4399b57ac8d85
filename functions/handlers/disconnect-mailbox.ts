// DELETE /v1/connected-mailboxes/{id}: disconnect a mailbox (admin); its credentials are deleted; 204.
import { systemClock, type Clock } from '../clock';
import { NotFoundError } from '../errors';
import { disconnectMailbox, requireMailboxAdmin } from '../domain/mailboxes/connect';
import { mailboxNotFoundMessage } from '../domain/mailboxes/workspace-sync';
import { isUuid } from '../domain/workspace/bodies';
import { apiHandler, type Route } from '../http/api-handler';

export const disconnectMailboxRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    const admin = await requireMailboxAdmin(request.principal);
    const id = request.pathParameters.id;
    if (!isUuid(id)) throw new NotFoundError(mailboxNotFoundMessage);
    await disconnectMailbox(admin, id.toLowerCase(), clock(), request.log);
    return { statusCode: 204 };
  };

export const handler = apiHandler(disconnectMailboxRoute());
