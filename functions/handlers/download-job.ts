// GET /v1/email/validate-file/{jobId}/download: presigned GET of a completed job's results file.
import { describeDownload } from '../domain/bulk/jobs';
import { apiHandler, type Route } from '../http/api-handler';

const downloadJobRoute: Route = async (request) => ({
  statusCode: 200,
  body: await describeDownload(
    request.principal.companyId,
    request.pathParameters.jobId ?? '',
    request.query,
  ),
});

export const handler = apiHandler(downloadJobRoute);
