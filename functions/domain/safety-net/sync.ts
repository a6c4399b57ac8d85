// One connection's sync (the runSafetyNet consumer, kind 'sync').
// Primary course:
//   1. the connection is read (gone: nothing to do) and shows `syncing`
//   2. on the first sync, mailvet's webhook is registered (a failure is logged: the look-ahead still runs)
//   3. every mailbox and sequence is read from the platform (paging, 429s, token refresh: the adapter's)
//   4. the platform's share of the Safety Net lists is replaced (lists.ts), unless the connection was
//      deleted meanwhile
//   5. `connected` with lastSyncAt; a refused grant: `grant_error`; a long rate limit: retried at its
//      time; any other failure: lastSyncError and a retry by the queue. Lists change only in step 4.
import type { Clock } from '../../clock';
import type { Logger } from '../../log';
import { readConnection, setConnectionStatus, setWebhookId, openWebhookSecret } from '../../store/safety-net';
import { GrantRevokedError, PlatformError, RateLimitedError } from './errors';
import { storedGrantKeeper } from './grants';
import { replacePlatformItems, type ListsChange } from './lists';
import type { SafetyNetMessage } from './messages';
import { platformAdapter, type PlatformAdapter } from './platforms';

export type WorkOutcome = { kind: 'done' } | { kind: 'gone' } | { kind: 'later'; retryAt: Date };

/** What lastSyncError says, never with a token, an address or a platform's body. */
function syncErrorText(error: unknown): string {
  if (error instanceof GrantRevokedError) return error.message;
  if (error instanceof RateLimitedError)
    return `Rate limited by the platform until ${error.retryAt.toISOString()}`;
  if (error instanceof PlatformError)
    return `The platform answered ${error.status}; the sync will be retried`;
  return 'The sync failed; it will be retried';
}

export interface Deps {
  clock: Clock;
  log: Logger;
  adapter?: (message: SafetyNetMessage) => PlatformAdapter;
}

export function adapterFor(message: SafetyNetMessage, clock: Clock, log: Logger): PlatformAdapter {
  return platformAdapter(message.platform, storedGrantKeeper(message.companyId, message.platform, clock), {
    clock,
    log,
    // a queue consumer may wait out a short pause; a longer one puts the message back until then
    maxWaitMs: 60_000,
  });
}

/**
 * Runs one unit of work against the platform, turning its typed errors into the connection's state:
 * GrantRevokedError -> grant_error (done: nothing to retry until the admin reconnects); RateLimitedError
 * -> later; anything else is recorded and thrown (the queue retries).
 */
export async function withConnectionState(
  message: SafetyNetMessage,
  { log }: Deps,
  work: () => Promise<WorkOutcome>,
): Promise<WorkOutcome> {
  const { companyId, platform } = message;
  try {
    return await work();
  } catch (error) {
    if (error instanceof GrantRevokedError) {
      await setConnectionStatus(companyId, platform, 'grant_error', { lastSyncError: syncErrorText(error) });
      log.warn('safety net grant refused', { companyId, platform, kind: message.kind });
      return { kind: 'done' };
    }
    if (error instanceof RateLimitedError) {
      if (message.kind === 'sync')
        await setConnectionStatus(companyId, platform, 'syncing', { lastSyncError: syncErrorText(error) });
      return { kind: 'later', retryAt: error.retryAt };
    }
    if (message.kind === 'sync')
      await setConnectionStatus(companyId, platform, 'connected', { lastSyncError: syncErrorText(error) });
    log.error(
      'safety net work failed',
      error instanceof PlatformError ? error : new Error(syncErrorText(error)),
    );
    throw error;
  }
}

export async function runSync(message: SafetyNetMessage, deps: Deps): Promise<WorkOutcome> {
  const { companyId, platform } = message;
  const { clock, log } = deps;
  const connection = await readConnection(companyId, platform);
  if (!connection) return { kind: 'gone' };
  return withConnectionState(message, deps, async () => {
    await setConnectionStatus(companyId, platform, 'syncing');
    const adapter = deps.adapter?.(message) ?? adapterFor(message, clock, log);
    if (message.webhookUrl && !connection.webhookId) {
      try {
        const id = await adapter.registerWebhook(message.webhookUrl, await openWebhookSecret(connection));
        if (id) await setWebhookId(companyId, platform, id);
      } catch (error) {
        if (error instanceof GrantRevokedError || error instanceof RateLimitedError) throw error;
        log.warn('webhook registration failed; the look-ahead still runs', {
          companyId,
          platform,
          error: (error as Error).name,
        });
      }
    }
    const mailboxes = await adapter.mailboxes();
    const sequences = await adapter.sequences();
    // deleted while we read: its items left the lists, and must not come back
    if (!(await readConnection(companyId, platform))) return { kind: 'gone' };
    const change: ListsChange = await replacePlatformItems(
      companyId,
      platform,
      { mailboxes, sequences },
      clock,
    );
    await setConnectionStatus(companyId, platform, 'connected', {
      lastSyncAt: clock().toISOString(),
      lastSyncError: null,
    });
    log.info('safety net synced', { companyId, platform, ...change });
    return { kind: 'done' };
  });
}
