import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../../functions/http/openapi';
import { routes } from '../../functions/wiring';

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };

  it('describes every route of the wiring table with its function', () => {
    for (const route of routes) {
      expect(document.paths[route.path]?.[route.method.toLowerCase()]?.operationId).toBe(route.function);
    }
  });

  it('is the committed docs/openapi.json (run `npm run openapi` after changing routes or schemas)', () => {
    const committed = readFileSync(path.resolve(__dirname, '../../docs/openapi.json'), 'utf8');
    expect(JSON.parse(committed)).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('takes the job-creation body from the schema the handler parses with', () => {
    const post = document.paths['/v1/email/validate-file']!.post as unknown as {
      requestBody: {
        content: { 'application/json': { schema: { required: string[]; properties: object } } };
      };
    };
    const schema = post.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(['emailColumn']);
    expect(Object.keys(schema.properties).sort()).toEqual(['callbackUrl', 'emailColumn', 'fileName']);
  });
});
