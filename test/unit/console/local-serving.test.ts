// The local runtime's one port: the console at `/` (with its CSP), the API reference at `/docs`, the
// API at `/v1/...`, and the default function for everything else.
import { startApiGateway, type ApiGateway } from '../../../local/api-gateway';
import { consoleSite } from '../../../local/console-site';
import { routes, defaultRouteFunction } from '../../../functions/wiring';

let gateway: ApiGateway;
const invoked: string[] = [];

beforeAll(async () => {
  gateway = await startApiGateway({
    routes,
    defaultFunction: defaultRouteFunction,
    invoke: async (name) => {
      invoked.push(name);
      return {
        statusCode: 404,
        body: '{"error":"Not found"}',
        headers: { 'content-type': 'application/json' },
      };
    },
    port: 0,
    host: '127.0.0.1',
    site: consoleSite('http://127.0.0.1:4569'),
  });
});

afterAll(() => gateway?.close());

describe('local serving', () => {
  it('serves the console at / with its Content-Security-Policy', async () => {
    const response = await fetch(gateway.url + '/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain(
      "connect-src 'self' http://127.0.0.1:4569",
    );
    expect(await response.text()).toContain('<script type="module" src="app.js">');
    const script = await fetch(gateway.url + '/app.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await script.text()).length).toBeGreaterThan(10_000);
  });

  it('tells the console the API is on the same origin', async () => {
    expect(await (await fetch(gateway.url + '/config.json')).json()).toEqual({ apiUrl: '' });
  });

  it('leaves /docs to the API reference and /v1 and unknown paths to the functions', async () => {
    const docs = await fetch(gateway.url + '/docs');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
    invoked.length = 0;
    expect((await fetch(gateway.url + '/v1/users')).status).toBe(404);
    expect((await fetch(gateway.url + '/nothing.js')).status).toBe(404);
    expect((await fetch(gateway.url + '/app.js', { method: 'POST' })).status).toBe(404);
    expect(invoked).toEqual(['listUsers', defaultRouteFunction, defaultRouteFunction]);
  });
});
