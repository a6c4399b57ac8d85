// POST /v1/password-resets/confirm (no API key): the reset link's token and the new password.
import { systemClock } from '../clock';
import { publicApiHandler, type PublicRoute } from '../http/api-handler';
import { confirmPasswordReset, parseResetConfirmBody } from '../domain/people/password-reset';

const confirmPasswordResetRoute: PublicRoute = async (request) => ({
  statusCode: 200,
  body: await confirmPasswordReset(parseResetConfirmBody(request.body), systemClock(), request.log),
});

export const handler = publicApiHandler(confirmPasswordResetRoute);
