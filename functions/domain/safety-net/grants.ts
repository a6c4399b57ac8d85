// The stored grant of one connection as the platform sessions use it: opened from the connection item,
// replaced by a refresh under the item's lease (so two processes never refresh one grant at once, and
// a rotated refresh token is stored before anything uses the new access token), and the 429 hold.
import type { Clock } from '../../clock';
import {
  dropRefreshLease,
  holdPlatformUntil,
  openGrant,
  readConnection,
  storeGrant,
  takeRefreshLease,
  type SafetyNetPlatform,
} from '../../store/safety-net';
import { GrantRevokedError } from './errors';
import type { Grant, GrantKeeper } from './platforms/session';

/** A refresh holds its lease this long at most; a process that died holding it frees the grant after it. */
const leaseMs = 30_000;
const pollMs = 150;

/** In-process single flight: one refresh per grant at a time, whoever asks. */
const inFlight = new Map<string, Promise<{ grant: Grant; version: number }>>();

function parseGrant(text: string): Grant {
  const value = JSON.parse(text) as Partial<Grant>;
  if (typeof value.accessToken !== 'string' || typeof value.expiresAt !== 'string')
    throw new Error('stored grant has no access token');
  return {
    accessToken: value.accessToken,
    refreshToken: value.refreshToken ?? '',
    expiresAt: value.expiresAt,
  };
}

export const grantText = (grant: Grant): string =>
  JSON.stringify({
    accessToken: grant.accessToken,
    expiresAt: grant.expiresAt,
    refreshToken: grant.refreshToken,
  });

export function storedGrantKeeper(
  companyId: string,
  platform: SafetyNetPlatform,
  clock: Clock,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): GrantKeeper {
  const read = async () => {
    const connection = await readConnection(companyId, platform);
    if (!connection) throw new GrantRevokedError(platform);
    return { connection, grant: parseGrant(await openGrant(connection)), version: connection.grantVersion };
  };

  async function refreshOnce(stale: number, refresh: (grant: Grant) => Promise<Grant>) {
    const deadline = clock().getTime() + leaseMs * 2;
    for (;;) {
      const { connection, grant, version } = await read();
      // someone else stored a newer grant meanwhile: use it
      if (version !== stale) return { grant, version };
      const now = clock();
      if (await takeRefreshLease(companyId, platform, version, new Date(now.getTime() + leaseMs), now)) {
        let fresh: Grant;
        try {
          fresh = await refresh(grant);
        } catch (error) {
          await dropRefreshLease(companyId, platform);
          throw error;
        }
        if (!(await storeGrant(companyId, platform, grantText(fresh), version)))
          throw new Error('the grant changed while its lease was held');
        return { grant: fresh, version: version + 1 };
      }
      if (connection.status === 'grant_error' || clock().getTime() > deadline)
        throw new GrantRevokedError(platform);
      await sleep(pollMs);
    }
  }

  return {
    async current() {
      const { grant, version } = await read();
      return { grant, version };
    },
    refresh(stale, refresh) {
      const key = `${companyId}|${platform}|${stale}`;
      let flight = inFlight.get(key);
      if (!flight) {
        flight = refreshOnce(stale, refresh).finally(() => inFlight.delete(key));
        inFlight.set(key, flight);
      }
      return flight;
    },
    async heldUntil() {
      const connection = await readConnection(companyId, platform);
      return connection?.rateLimitedUntil === undefined ? undefined : new Date(connection.rateLimitedUntil);
    },
    hold(until) {
      return holdPlatformUntil(companyId, platform, until);
    },
  };
}
