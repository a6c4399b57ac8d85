// POST /v1/integrations/{platform} (admin): the platform's authorize URL, with a single-use state.
import { systemClock } from '../clock';
import { NotFoundError } from '../errors';
import { apiHandler, type Route } from '../http/api-handler';
import { secretSettings } from '../middlewares/secret-settings';
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

// mailvet's client id comes from the platform credentials (a secret store in AWS)
export const handler = apiHandler(startIntegrationRoute).use(secretSettings());
