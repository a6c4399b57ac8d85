// POST /v1/password-resets (no API key): email a one-time link to choose a new password; the same
// answer for any address (docs/people.md).
import { systemClock } from '../clock';
import { publicApiHandler, type PublicRoute } from '../http/api-handler';
import { parseResetRequestBody, requestPasswordReset } from '../domain/people/password-reset';

const requestPasswordResetRoute: PublicRoute = async (request) => ({
  statusCode: 202,
  body: await requestPasswordReset(parseResetRequestBody(request.body), systemClock(), request.log),
});

export const handler = publicApiHandler(requestPasswordResetRoute);
