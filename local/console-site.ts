// The web console on the local runtime: built in memory with esbuild at start and served at `/` beside
// the API (`/v1/...`), from the same origin, so its config.json says "this origin" (an empty apiUrl).
import type http from 'node:http';
import { buildConsole, type ConsoleFile } from '../console/build';

export interface StaticSite {
  /** The file for a request path, or undefined when the site has none. */
  get(path: string): ConsoleFile | undefined;
}

let built: Promise<StaticSite> | undefined;

/** Built once per process: a test file that starts several runtimes pays for one build. */
export function buildConsoleSite(): Promise<StaticSite> {
  built ??= build();
  return built;
}

async function build(): Promise<StaticSite> {
  const files = new Map<string, ConsoleFile>();
  for (const file of await buildConsole()) files.set(`/${file.path}`, file);
  files.set('/config.json', {
    path: 'config.json',
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify({ apiUrl: '' })),
  });
  return { get: (path) => files.get(path === '/' ? '/index.html' : path) };
}

/** Serves a GET or HEAD from the site; false when the request is not for it. */
export function serveStatic(
  site: StaticSite | undefined,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  path: string,
): boolean {
  const method = request.method ?? 'GET';
  if (!site || (method !== 'GET' && method !== 'HEAD')) return false;
  const file = site.get(path);
  if (!file) return false;
  response.writeHead(200, {
    'content-type': file.contentType,
    'content-length': file.body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  response.end(method === 'HEAD' ? undefined : file.body);
  return true;
}
