// POST /v1/invites/accept (no API key): the accept page's call, with the link's token (docs/people.md).
import { systemClock, type Clock } from '../clock';
import { publicApiHandler, type PublicRoute } from '../http/api-handler';
import { acceptInvite, parseAcceptInviteBody } from '../domain/people/accept-invite';

export const acceptInviteRoute =
  (clock: Clock = systemClock): PublicRoute =>
  async (request) => ({
    statusCode: 200,
    body: await acceptInvite(parseAcceptInviteBody(request.body), clock(), request.log),
  });

export const handler = publicApiHandler(acceptInviteRoute());
