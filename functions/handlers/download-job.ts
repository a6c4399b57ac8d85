// GET /v1/email/validate-file/{jobId}/download: presigned GET of a completed job's results file.
import { describeDownload, downloadQuery } from '../domain/bulk/jobs';
import { parseQuery } from '../domain/workspace/query';
import { apiHandler, type Route } from '../http/api-handler';

const downloadJobRoute: Route = async (request) => ({
  statusCode: 200,
  body: await describeDownload(
    request.principal.companyId,
    request.pathParameters.jobId ?? '',
    parseQuery(downloadQuery, request.query),
  ),
});

export const handler = apiHandler(downloadJobRoute);
