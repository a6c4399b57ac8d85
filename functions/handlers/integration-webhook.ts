// POST /v1/integrations/{platform}/webhooks/{companyId} (no key; the platform's signature instead):
// a signed delivery queues a look-ahead of that connection at once.
import { NotFoundError } from '../errors';
import { keylessHandler, type KeylessRoute } from '../http/keyless-handler';
import { platformParam } from '../domain/safety-net/connections';
import { receiveWebhook } from '../domain/safety-net/webhooks';

const integrationWebhookRoute: KeylessRoute = async (request) => {
  const platform = platformParam.safeParse(request.pathParameters.platform);
  if (!platform.success) throw new NotFoundError('Not found');
  await receiveWebhook(
    platform.data,
    request.pathParameters.companyId ?? '',
    request.rawBody,
    request.headers,
    request.log,
  );
  return { statusCode: 204 };
};

export const handler = keylessHandler(integrationWebhookRoute);
