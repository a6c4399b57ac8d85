// POST /v1/users: invite a user (201 new invite, 200 refreshed invite).
import { apiHandler, type Route } from '../http/api-handler';
import { requirePermission } from '../domain/accounts/accounts';
import { parseInviteBody } from '../domain/workspace/bodies';
import { systemClock, type Clock } from '../domain/workspace/dates';
import { inviteUser } from '../domain/workspace/invites';

export const inviteUserRoute =
  (clock: Clock = systemClock): Route =>
  async (request) => {
    // Permission first (403), then the body (400): a caller without the right learns nothing else.
    const permitted = await requirePermission(request.principal, 'inviteUsers');
    const body = parseInviteBody(request.body);
    const { created, user } = await inviteUser(permitted, body, clock(), request.log);
    return { statusCode: created ? 201 : 200, body: user };
  };

export const handler = apiHandler(inviteUserRoute());
