// A local stand-in for the HTTP API: matches the routes of functions/wiring.ts, builds the payload 2.0
// event the stack's Lambda integration sends, invokes the route's function and writes its response.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { securityHeaders } from '../functions/http/response';
import type { RouteSpec } from '../functions/wiring';
import { serveStatic, type StaticSite } from './console-site';
import { serveDocs } from './docs-site';
import { listen } from './ports';

/** API Gateway's payload limit. */
const maxBodyBytes = 10 * 1024 * 1024;

export type InvokeFunction = (functionName: string, event: unknown) => Promise<unknown>;

interface CompiledRoute {
  spec: RouteSpec;
  pattern: RegExp;
  names: string[];
}

function compileRoutes(routes: RouteSpec[]): CompiledRoute[] {
  return routes.map((spec) => {
    const names: string[] = [];
    const source = spec.path
      .split('/')
      .map((segment) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (!param) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        names.push(param[1]!);
        return '([^/]+)';
      })
      .join('/');
    return { spec, pattern: new RegExp(`^${source}$`), names };
  });
}

export interface RouteMatch {
  spec: RouteSpec;
  pathParameters: Record<string, string>;
}

/** The route for a method and path, or undefined (the $default route answers those). */
function matchRoute(routes: CompiledRoute[], method: string, path: string): RouteMatch | undefined {
  for (const route of routes) {
    if (route.spec.method !== method) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    route.names.forEach((name, i) => {
      const raw = match[i + 1] ?? '';
      try {
        pathParameters[name] = decodeURIComponent(raw);
      } catch {
        pathParameters[name] = raw;
      }
    });
    return { spec: route.spec, pathParameters };
  }
  return undefined;
}

const textTypes = /^(text\/|application\/(json|xml|x-www-form-urlencoded|javascript)|[^;]*\+json)/i;

function buildApiEvent(
  request: http.IncomingMessage,
  body: Buffer,
  match: RouteMatch | undefined,
  requestId: string,
): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') cookies.push(...String(value).split(/;\s*/));
    else headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const method = (request.method ?? 'GET').toUpperCase();
  const routeKey = match ? `${match.spec.method} ${match.spec.path}` : '$default';
  const isText = textTypes.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(match && Object.keys(match.pathParameters).length ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function readBody(request: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxBodyBytes ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function writeResult(response: http.ServerResponse, result: unknown, requestId: string): void {
  response.setHeader('apigw-requestid', requestId);
  for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
  const structured = (result ?? {}) as APIGatewayProxyStructuredResultV2;
  if (typeof result !== 'object' || result === null || structured.statusCode === undefined) {
    // Payload 2.0: a result without statusCode is a 200 with the result as its JSON body.
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(typeof result === 'string' ? result : JSON.stringify(result ?? null));
    return;
  }
  for (const [name, value] of Object.entries(structured.headers ?? {}))
    response.setHeader(name, String(value));
  if (structured.cookies?.length) response.setHeader('set-cookie', structured.cookies);
  response.statusCode = structured.statusCode;
  const body = structured.body ?? '';
  response.end(structured.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

export interface DependencyHealth {
  available(): boolean;
  /** Whether the dependency failed since `since` (epoch ms), to tell a 500 it caused. */
  failedSince(since: number): Promise<boolean>;
}

/** decisions.md: a dependency that is unavailable answers 503 with Retry-After. */
const unavailableSeconds = 5;
function writeUnavailable(response: http.ServerResponse, requestId: string): void {
  response.setHeader('apigw-requestid', requestId);
  response.writeHead(503, {
    'content-type': 'application/json',
    'retry-after': String(unavailableSeconds),
    ...securityHeaders,
  });
  response.end('{"error":"Service temporarily unavailable"}');
}

export interface ApiGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startApiGateway(options: {
  routes: RouteSpec[];
  defaultFunction: string;
  invoke: InvokeFunction;
  port: number;
  host: string;
  /** What the functions depend on (DynamoDB Local): while unavailable, routes answer 503. */
  dependencies?: DependencyHealth;
  /** Files served for GET and HEAD requests that match no route (the web console at `/`). */
  site?: StaticSite;
}): Promise<ApiGateway> {
  const compiled = compileRoutes(options.routes);
  const server = http.createServer(async (request, response) => {
    const requestId = randomUUID();
    const startedAt = Date.now();
    const { dependencies } = options;
    try {
      // `/` is the web console (local/console-site.ts) and `/docs` the API reference
      // (local/docs-site.ts): the local runtime's own pages, not API routes.
      const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (
        (await serveStatic(options.site, request, response, pathname)) ||
        (await serveDocs(request, response))
      )
        return;
      const body = await readBody(request);
      if (body === 'too-large') {
        response.writeHead(413, { 'content-type': 'application/json', ...securityHeaders });
        response.end('{"error":"Request body too large"}');
        return;
      }
      const url = new URL(request.url ?? '/', 'http://localhost');
      const match = matchRoute(compiled, (request.method ?? 'GET').toUpperCase(), url.pathname);
      const event = buildApiEvent(request, body, match, requestId);
      if (dependencies && !dependencies.available()) return writeUnavailable(response, requestId);
      const result = await options.invoke(match ? match.spec.function : options.defaultFunction, event);
      const failed = (result as APIGatewayProxyStructuredResultV2 | null)?.statusCode === 500;
      // A 500 from a function whose database went away under it is the outage's, not a bug's.
      if (failed && dependencies && (await dependencies.failedSince(startedAt)))
        return writeUnavailable(response, requestId);
      writeResult(response, result, requestId);
    } catch {
      if (!response.headersSent && dependencies && (await dependencies.failedSince(startedAt)))
        return writeUnavailable(response, requestId);
      // A crash or timeout of the function: what API Gateway answers, in the conventions' error shape.
      if (!response.headersSent)
        response.writeHead(500, { 'content-type': 'application/json', ...securityHeaders });
      response.end('{"error":"Internal server error"}');
    }
  });
  server.keepAliveTimeout = 5000;
  // Requests Node refuses before any route sees them (headers over 16 KB, malformed HTTP) get the
  // service's error body too, not Node's empty one.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Request headers too large']
        : [400, 'Bad Request', 'Bad request'];
    const body = JSON.stringify({ error: message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  const port = await listen(server, options.port, options.host, 'the local API');
  return {
    url: `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
