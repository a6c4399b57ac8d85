// POST /v1/integrations/{platform}/sync: 202, the connection's sync is queued now.
import { NotFoundError } from '../errors';
import { apiHandler, type Route } from '../http/api-handler';
import { platformParam, requestSync, unknownPlatformMessage } from '../domain/safety-net/connections';

const syncIntegrationRoute: Route = async (request) => {
  const platform = platformParam.safeParse(request.pathParameters.platform);
  if (!platform.success) throw new NotFoundError(unknownPlatformMessage);
  await requestSync(request.principal.companyId, platform.data);
  return { statusCode: 202 };
};

export const handler = apiHandler(syncIntegrationRoute);
