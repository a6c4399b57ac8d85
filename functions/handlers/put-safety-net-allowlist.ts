// PUT /v1/safety-net/allowlist/{email} (admin): 204; the address is never stopped (any case).
import { systemClock } from '../clock';
import { apiHandler, type Route } from '../http/api-handler';
import { allow, parseAllowEmail } from '../domain/safety-net/records';

const putAllowlistRoute: Route = async (request) => {
  await allow(request.principal, parseAllowEmail(request.pathParameters.email), systemClock);
  return { statusCode: 204 };
};

export const handler = apiHandler(putAllowlistRoute);
