// The console's calls of the Safety Net connections, spread into createApi (api.ts): connect,
// disconnect, sync, the connections' state, the preventions and the allowlist.
import type { Client } from 'openapi-fetch';
import type { paths } from '../../client';

export interface Integration {
  connectedAt: string;
  lastSyncAt: string | null;
  lastSyncError: string | null;
  platform: 'outreach' | 'salesloft';
  status: 'connected' | 'syncing' | 'grant_error';
}

export interface Prevention {
  createdAt: string;
  explanation: string;
  id: string;
  mailbox: string;
  platform: 'outreach' | 'salesloft';
  prospectEmail: string;
  reason: string;
  sequence: { crmSequenceId: string; name: string } | null;
  status: string;
}

export type Platform = Integration['platform'];
type Paging = { limit?: number; offset?: number };
type Answer = { data?: unknown; error?: unknown; response: Response };

/** The calls, given the typed client and how api.ts turns an answer into a body or an ApiError. */
export function safetyNetCalls(
  api: Client<paths>,
  translated: <T>(call: () => Promise<T>) => Promise<T>,
  bodyOf: <T>(answer: Answer) => T,
) {
  const platformPath = (platform: Platform) => ({ params: { path: { platform } } });
  return {
    listIntegrations: () =>
      translated(async () => bodyOf<{ integrations: Integration[] }>(await api.GET('/v1/integrations'))),
    /** The platform's authorize URL: the page sends the browser there. */
    connectIntegration: (platform: Platform) =>
      translated(async () =>
        bodyOf<{ authorizeUrl: string }>(
          await api.POST('/v1/integrations/{platform}', platformPath(platform)),
        ),
      ),
    syncIntegration: (platform: Platform) =>
      translated(async () => {
        bodyOf(await api.POST('/v1/integrations/{platform}/sync', platformPath(platform)));
      }),
    disconnectIntegration: (platform: Platform) =>
      translated(async () => {
        bodyOf(await api.DELETE('/v1/integrations/{platform}', platformPath(platform)));
      }),
    listPreventions: (query: Paging = {}) =>
      translated(async () =>
        bodyOf<{ limit: number; offset: number; total: number; preventions: Prevention[] }>(
          await api.GET('/v1/safety-net/preventions', {
            params: {
              query: {
                ...(query.limit === undefined ? {} : { limit: String(query.limit) }),
                ...(query.offset === undefined ? {} : { offset: String(query.offset) }),
              },
            },
          }),
        ),
      ),
    getAllowlist: () =>
      translated(async () => bodyOf<{ emails: string[] }>(await api.GET('/v1/safety-net/allowlist'))),
    allowEmail: (email: string) =>
      translated(async () => {
        bodyOf(await api.PUT('/v1/safety-net/allowlist/{email}', { params: { path: { email } } }));
      }),
    disallowEmail: (email: string) =>
      translated(async () => {
        bodyOf(await api.DELETE('/v1/safety-net/allowlist/{email}', { params: { path: { email } } }));
      }),
  };
}
