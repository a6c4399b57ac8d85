// POST /v1/integrations/{platform} (admin): the platform's authorize URL, with a single-use state.
import { systemClock } from '../clock';
import { NotFoundError } from '../errors';
import { apiHandler, type Route } from '../http/api-handler';
import { reachedAtOf } from '../http/keyless-handler';
import { platformParam, startConnection, unknownPlatformMessage } from '../domain/safety-net/connections';

const startIntegrationRoute: Route = async (request) => {
  const platform = platformParam.safeParse(request.pathParameters.platform);
  if (!platform.success) throw new NotFoundError(unknownPlatformMessage);
  return {
    statusCode: 200,
    body: await startConnection(request.principal, platform.data, reachedAtOf(request.headers), systemClock),
  };
};

export const handler = apiHandler(startIntegrationRoute);
