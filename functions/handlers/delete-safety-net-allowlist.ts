// DELETE /v1/safety-net/allowlist/{email} (admin): 204; the address is judged like any other again.
import { apiHandler, type Route } from '../http/api-handler';
import { disallow, parseAllowEmail } from '../domain/safety-net/records';

const deleteAllowlistRoute: Route = async (request) => {
  await disallow(request.principal, parseAllowEmail(request.pathParameters.email));
  return { statusCode: 204 };
};

export const handler = apiHandler(deleteAllowlistRoute);
