// The local runtime's pages outside the API: `GET /` (a short page linking the reference) and `/docs`,
// an interactive reference of docs/openapi.json rendered by Swagger UI from the swagger-ui-dist
// package (served from node_modules, so it works offline).
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';

const openApiPath = path.resolve(__dirname, '..', 'docs', 'openapi.json');
const assetsDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The only files of swagger-ui-dist the page loads. */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const homePage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>mailvet</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style>
</head>
<body>
<h1>mailvet</h1>
<p>Email validation: bulk CSV files, single addresses, workspace data. This is the local runtime.</p>
<ul>
<li><a href="/docs">API reference</a> (interactive; authorize with a key such as <code>demo-admin-key</code>)</li>
<li><a href="/docs/openapi.json">OpenAPI document</a></li>
</ul>
<p>From a terminal: <code>npx mailvet validate-file leads.csv --key demo-admin-key</code></p>
</body>
</html>
`;

const docsPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>mailvet API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const initScript = `window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
});
`;

/**
 * The pages' Content-Security-Policy: Swagger UI's script and styles from this origin only (it sets
 * style attributes, hence 'unsafe-inline' for styles, never for scripts), its icons as data: images,
 * and "Try it out" calls to this origin.
 */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Page {
  status: number;
  type: string;
  body: string | Buffer;
}

/** The page for a GET or HEAD of `pathname`, or undefined when the path is the API's. */
async function docsPageFor(pathname: string, host: string | undefined): Promise<Page | undefined> {
  if (pathname === '/') return { status: 200, type: 'text/html; charset=utf-8', body: homePage };
  if (pathname === '/docs' || pathname === '/docs/')
    return { status: 200, type: 'text/html; charset=utf-8', body: docsPage };
  if (pathname === '/docs/init.js')
    return { status: 200, type: 'text/javascript; charset=utf-8', body: initScript };
  if (pathname === '/docs/openapi.json') {
    const document = JSON.parse(await readFile(openApiPath, 'utf8')) as Record<string, unknown>;
    // "Try it out" calls the runtime that served the page, whatever its port.
    if (host && /^[\w.-]+(:\d+)?$/.test(host))
      document.servers = [{ url: `http://${host}`, description: 'this local runtime' }];
    return { status: 200, type: 'application/json', body: JSON.stringify(document, null, 2) };
  }
  const asset = /^\/docs\/assets\/([\w.-]+)$/.exec(pathname)?.[1];
  if (asset !== undefined) {
    const type = assets[asset];
    if (!type) return { status: 404, type: 'text/plain; charset=utf-8', body: 'Not found\n' };
    return { status: 200, type, body: await readFile(path.join(assetsDir, asset)) };
  }
  return undefined;
}

/** Answers `/` and `/docs...` GET and HEAD requests; false when the request is the API's. */
export async function serveDocs(
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<boolean> {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return false;
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  const page = await docsPageFor(pathname, request.headers.host);
  if (!page) return false;
  const body = typeof page.body === 'string' ? Buffer.from(page.body) : page.body;
  response.writeHead(page.status, {
    'content-type': page.type,
    'content-length': body.byteLength,
    'cache-control': 'no-cache',
    'content-security-policy': docsContentSecurityPolicy,
    'x-content-type-options': 'nosniff',
  });
  response.end(method === 'HEAD' ? undefined : body);
  return true;
}
