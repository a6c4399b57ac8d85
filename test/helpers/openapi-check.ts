// Checks a real HTTP response against docs/openapi.json: the route and status are documented, the JSON
// body validates against the documented schema, and an error's text is one the document lists.
import Ajv2020 from 'ajv/dist/2020';
import openapi from '../../docs/openapi.json';

interface MediaType {
  schema: Record<string, unknown>;
  examples?: Record<string, { value: { error: string } }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, { content?: { 'application/json'?: MediaType } }>;
}

const document = openapi as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'openapi', components: document.components });

const routes = Object.entries(document.paths).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
    template,
    operation,
  })),
);

/** The documented operation of a request, or undefined for a route the API does not define. */
export function operationOf(method: string, path: string): Operation | undefined {
  const pathname = new URL(path, 'http://x').pathname;
  return routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(pathname))?.operation;
}

const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorFor(schema: Record<string, unknown>) {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    const ref = typeof schema.$ref === 'string' ? schema.$ref.replace(/^#/, 'openapi#') : undefined;
    validate = ajv.compile(ref ? { $ref: ref } : schema);
    validators.set(key, validate);
  }
  return validate;
}

/** The problems of one response against the document; empty when it matches. */
export function responseProblems(method: string, path: string, status: number, body: string): string[] {
  const operation = operationOf(method, path);
  if (!operation) return [`${method} ${path} is not a documented route`];
  const where = `${operation.operationId} ${status}`;
  const response = operation.responses[String(status)];
  if (!response) return [`${where}: status not documented`];
  const media = response.content?.['application/json'];
  if (!media) return body === '' ? [] : [`${where}: a body where none is documented`];
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return [`${where}: body is not JSON: ${body.slice(0, 200)}`];
  }
  const validate = validatorFor(media.schema);
  if (!validate(json)) return [`${where}: ${ajv.errorsText(validate.errors)} in ${body.slice(0, 300)}`];
  if (media.examples) {
    const texts = Object.values(media.examples).map((example) => example.value.error);
    const text = (json as { error: string }).error;
    if (!texts.includes(text)) return [`${where}: error text not listed: ${JSON.stringify(text)}`];
  }
  return [];
}

/** Throws when a response does not match the document (reads a clone, so the caller keeps the body). */
export async function expectDocumented(method: string, path: string, response: Response): Promise<void> {
  const problems = responseProblems(method, path, response.status, await response.clone().text());
  if (problems.length > 0) throw new Error(`Response differs from docs/openapi.json: ${problems.join('; ')}`);
}
