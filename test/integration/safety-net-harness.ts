// Shared set-up of the Safety Net suites: a local runtime whose platform URLs point at the Outreach or
// Salesloft stand-in (test/fakes/), and the steps a person takes: connect through the OAuth redirect,
// wait for the sync, read the lists.
import type { TestRuntime } from '../helpers/local-runtime';
import { until } from '../helpers/until';

export type Platform = 'outreach' | 'salesloft';

export interface FakeEndpoints {
  apiUrl: string;
  oauthUrl: string;
  clientId: string;
  clientSecret: string;
}

/** The settings that send one platform's calls to its fake. */
export function platformEnv(platform: Platform, fake: FakeEndpoints): Record<string, string> {
  const prefix = platform.toUpperCase();
  return {
    [`${prefix}_API_URL`]: fake.apiUrl,
    [`${prefix}_OAUTH_URL`]: fake.oauthUrl,
    [`${prefix}_CLIENT_ID`]: fake.clientId,
    [`${prefix}_CLIENT_SECRET`]: fake.clientSecret,
    RATE_LIMIT_PER_SECOND: '100000',
    ...(process.env.SN_DEBUG ? { LOG_LEVEL: 'info' } : {}),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function api(
  local: TestRuntime,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${local.baseUrl}${path}`, {
    method,
    headers: {
      'x-api-key': options.key ?? local.keys.admin,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/**
 * Connects through the whole redirect, as a browser would: mailvet's authorize URL, the platform's
 * consent (its 302 back), mailvet's callback (its 302 to the console). Returns the callback's URL.
 */
export async function connect(local: TestRuntime, platform: Platform, oauthUrl: string): Promise<string> {
  const start = await api(local, 'POST', `/v1/integrations/${platform}`);
  expect(start.status).toBe(200);
  expect(start.body.authorizeUrl.startsWith(`${oauthUrl}/authorize?`)).toBe(true);
  const consent = await fetch(start.body.authorizeUrl, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const callback = consent.headers.get('location')!;
  expect(callback.startsWith(`${local.baseUrl}/v1/integrations/${platform}/callback?`)).toBe(true);
  const back = await fetch(callback, { redirect: 'manual' });
  expect(back.status).toBe(302);
  expect(back.headers.get('location')).toBe(`${local.baseUrl}/#/safety-net`);
  return callback;
}

export async function integration(local: TestRuntime, platform: Platform): Promise<Json> {
  const list = await api(local, 'GET', '/v1/integrations');
  return list.body.integrations.find((i: Json) => i.platform === platform);
}

/** Waits for a sync that completed after `after` (an ISO time) to show. */
export function syncedAfter(
  local: TestRuntime,
  platform: Platform,
  after: string,
  timeoutMs = 90_000,
): Promise<Json> {
  return until(
    `${platform} sync after ${after}`,
    async () => {
      const state = await integration(local, platform);
      return state?.status === 'connected' && state.lastSyncAt !== null && state.lastSyncAt > after
        ? state
        : undefined;
    },
    timeoutMs,
  );
}

/** Every row of a list, page after page. */
export async function allRows(local: TestRuntime, path: string, key: string, query = ''): Promise<Json[]> {
  const rows: Json[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await api(local, 'GET', `${path}?limit=1000&offset=${offset}${query}`);
    expect(page.status).toBe(200);
    rows.push(...page.body[key]);
    if (rows.length >= page.body.total) return rows;
  }
}

export const ofPlatform = (rows: Json[], platform: Platform): Json[] =>
  rows.filter((row) => row.integrations.some((i: Json) => i.service === platform));
