// GET /v1/integrations/{platform}/callback?code&state (no key): the platform's redirect back. Stores
// the grant sealed, queues the first sync, and sends the browser to the console (302); 400 otherwise.
import { systemClock } from '../clock';
import { NotFoundError, ValidationError } from '../errors';
import { keylessHandler, type KeylessRoute } from '../http/keyless-handler';
import { secretSettings } from '../middlewares/secret-settings';
import {
  badStateMessage,
  callbackQuery,
  completeConnection,
  platformParam,
  unknownPlatformMessage,
} from '../domain/safety-net/connections';

const integrationCallbackRoute: KeylessRoute = async (request) => {
  const platform = platformParam.safeParse(request.pathParameters.platform);
  if (!platform.success) throw new NotFoundError(unknownPlatformMessage);
  const query = callbackQuery.safeParse(request.query);
  if (!query.success) throw new ValidationError(badStateMessage);
  const location = await completeConnection(
    platform.data,
    query.data,
    request.reachedAt,
    systemClock,
    request.log,
  );
  return { statusCode: 302, headers: { location, 'cache-control': 'no-store' } };
};

// the code exchange needs mailvet's client secret (a secret store in AWS)
export const handler = keylessHandler(integrationCallbackRoute).use(secretSettings());
