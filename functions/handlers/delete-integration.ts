// DELETE /v1/integrations/{platform} (admin): 204; the grant is forgotten and the platform's items
// leave the Safety Net lists.
import { systemClock } from '../clock';
import { NotFoundError } from '../errors';
import { apiHandler, type Route } from '../http/api-handler';
import { disconnect, platformParam, unknownPlatformMessage } from '../domain/safety-net/connections';

const deleteIntegrationRoute: Route = async (request) => {
  const platform = platformParam.safeParse(request.pathParameters.platform);
  if (!platform.success) throw new NotFoundError(unknownPlatformMessage);
  await disconnect(request.principal, platform.data, systemClock);
  return { statusCode: 204 };
};

export const handler = apiHandler(deleteIntegrationRoute);
