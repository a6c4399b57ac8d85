// Every answer of the local runtime says `nosniff`: the API's (from any function, and the gateway's own
// 413/503/500 answers), the console's and the reference's; the reference at /docs also sends its
// Content-Security-Policy. The deployed functions send the same headers (functions/http/response.ts).
import { docsContentSecurityPolicy } from '../../local/docs-site';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';

let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(async () => {
  await runtime?.stop();
});

const get = (path: string, init: RequestInit = {}) => fetch(`${runtime.baseUrl}${path}`, init);

describe('x-content-type-options: nosniff', () => {
  test.each([
    ['a 200 from a function', '/v1/usage', true, 200],
    ['a 401 without a key', '/v1/usage', false, 401],
    ['a 404 of the default route', '/v1/nowhere', true, 404],
    ['a 400 for a bad query', '/v1/email/validate-file?limit=nope', true, 400],
  ])('on %s', async (_, path, withKey, status) => {
    const response = await get(path, withKey ? { headers: { 'x-api-key': runtime.keys.admin } } : {});
    expect(response.status).toBe(status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it("on the gateway's own 413 for an oversized body", async () => {
    const response = await get('/v1/email/validate', {
      method: 'POST',
      headers: { 'x-api-key': runtime.keys.admin, 'content-type': 'application/json' },
      body: 'x'.repeat(11 * 1024 * 1024),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('on the console, the reference and its assets', async () => {
    for (const path of ['/', '/docs', '/docs/init.js', '/docs/openapi.json', '/docs/assets/swagger-ui.css']) {
      const response = await get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect({ path, nosniff: response.headers.get('x-content-type-options') }).toEqual({
        path,
        nosniff: 'nosniff',
      });
    }
  });
});

describe('the reference at /docs', () => {
  it('sends a Content-Security-Policy that runs scripts from its own origin only', async () => {
    const csp = (await get('/docs')).headers.get('content-security-policy') ?? '';
    expect(csp).toBe(docsContentSecurityPolicy);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const scriptSources = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(scriptSources).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    // The page itself has no inline script for the policy to refuse.
    expect(await (await get('/docs')).text()).not.toMatch(/<script>(?!<\/script>)/);
  });
});
