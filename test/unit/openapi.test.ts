import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../../functions/http/openapi';
import { routes } from '../../functions/wiring';
import { responseProblems } from '../helpers/openapi-check';

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };

  it('describes every route of the wiring table with its function', () => {
    for (const route of routes) {
      expect(document.paths[route.path]?.[route.method.toLowerCase()]?.operationId).toBe(route.function);
    }
  });

  it('groups every route under a declared tag, and carries the package version', () => {
    const full = document as unknown as {
      info: { version: string };
      tags: { name: string; description: string }[];
      paths: Record<string, Record<string, { tags: string[] }>>;
    };
    const declared = full.tags.map((tag) => tag.name);
    const used = new Set<string>();
    for (const route of routes) {
      const tags = full.paths[route.path]![route.method.toLowerCase()]!.tags;
      expect(tags).toHaveLength(1);
      expect(declared).toContain(tags[0]);
      used.add(tags[0]!);
    }
    expect([...used].sort()).toEqual([...declared].sort());
    expect(full.paths['/v1/email/validate-file']!.post!.tags).toEqual(['Bulk jobs']);
    expect(full.paths['/v1/email/validate']!.post!.tags).toEqual(['Single addresses']);
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
      version: string;
    };
    expect(full.info.version).toBe(pkg.version);
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
    expect(Object.keys(schema.properties).sort()).toEqual([
      'callbackUrl',
      'emailColumn',
      'estimate',
      'fileName',
    ]);
  });
});

describe('checking a response against the document', () => {
  const job = {
    completedAt: null,
    createdAt: '2026-11-22T10:00:00.000Z',
    duplicateEmails: 0,
    jobId: 'j',
    percentComplete: 0,
    processedEmails: 0,
    statistics: null,
    status: 'processing',
    totalEmails: 0,
    unprobedEmails: 0,
  };
  const path = '/v1/email/validate-file/00000000-0000-4000-8000-000000000000';

  it('accepts a documented status with a valid body', () => {
    expect(responseProblems('GET', path, 200, JSON.stringify(job))).toEqual([]);
    expect(responseProblems('GET', path, 404, '{"error":"Job not found"}')).toEqual([]);
  });

  it('reports a body that breaks the schema, an unlisted error text and an undocumented status', () => {
    expect(responseProblems('GET', path, 200, JSON.stringify({ ...job, extra: 1 }))).toHaveLength(1);
    expect(responseProblems('GET', path, 200, JSON.stringify({ ...job, status: 'paused' }))).toHaveLength(1);
    expect(responseProblems('GET', path, 404, '{"error":"No such job"}')[0]).toContain('not listed');
    expect(responseProblems('GET', path, 418, '{}')[0]).toContain('not documented');
    expect(responseProblems('GET', '/v2/nothing', 404, '{}')[0]).toContain('not a documented route');
  });
});
