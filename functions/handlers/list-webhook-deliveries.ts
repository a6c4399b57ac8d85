// GET /v1/email/validate-file/{jobId}/webhook-deliveries: each attempt of the job's completion webhook.
import { jobNotFoundMessage } from '../domain/bulk/jobs';
import { listWebhookDeliveries } from '../domain/webhooks/delivery-log';
import { apiHandler, type Route } from '../http/api-handler';

const listWebhookDeliveriesRoute: Route = async (request) => ({
  statusCode: 200,
  body: await listWebhookDeliveries(
    request.principal.companyId,
    request.pathParameters.jobId ?? '',
    jobNotFoundMessage,
  ),
});

export const handler = apiHandler(listWebhookDeliveriesRoute);
