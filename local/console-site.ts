// The web console on the local runtime: built in memory with esbuild on its first request (so start-up
// does not wait for it) and served at `/` beside the API (`/v1/...`), from the same origin, so its
// config.json says "this origin" (an empty apiUrl).
import type http from 'node:http';
import { buildConsole, contentSecurityPolicy, type ConsoleFile } from '../console/build';

export interface StaticSite {
  /** The file for a request path, or undefined when the site has none. */
  get(path: string): Promise<ConsoleFile | undefined>;
  /** Sent with every file: the console's Content-Security-Policy. */
  headers: Record<string, string>;
}

let built: Promise<Map<string, ConsoleFile>> | undefined;

/** Where the console signs people in: the user pool's endpoint (the emulator here) and app client. */
export interface ConsolePeopleConfig {
  endpoint: string;
  clientId: string;
}

/**
 * The console, allowed to connect to `storageOrigin` (the local S3 of the presigned addresses) and the
 * user pool's endpoint besides its own origin. Built once per process, when first asked for: a test file
 * that starts several runtimes pays for one build, and one that never opens the console for none; each
 * runtime's config.json is its own.
 */
export function consoleSite(storageOrigin: string, people?: ConsolePeopleConfig): StaticSite {
  const config: ConsoleFile = {
    path: 'config.json',
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify({ apiUrl: '', ...(people ? { people } : {}) })),
  };
  const connect = [storageOrigin, ...(people ? [new URL(people.endpoint).origin] : [])].join(' ');
  return {
    get: async (path) => {
      if (path === '/config.json') return config;
      built ??= build();
      return (await built).get(path === '/' ? '/index.html' : path);
    },
    headers: { 'content-security-policy': contentSecurityPolicy(connect) },
  };
}

async function build(): Promise<Map<string, ConsoleFile>> {
  const files = new Map<string, ConsoleFile>();
  for (const file of await buildConsole()) files.set(`/${file.path}`, file);
  return files;
}

/** Serves a GET or HEAD from the site; false when the request is not for it (API paths never are). */
export async function serveStatic(
  site: StaticSite | undefined,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  path: string,
): Promise<boolean> {
  const method = request.method ?? 'GET';
  if (!site || (method !== 'GET' && method !== 'HEAD') || path.startsWith('/v1/')) return false;
  const file = await site.get(path);
  if (!file) return false;
  response.writeHead(200, {
    'content-type': file.contentType,
    'content-length': file.body.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...site.headers,
  });
  response.end(method === 'HEAD' ? undefined : file.body);
  return true;
}
