// Connecting a company to Outreach or Salesloft (docs/safety-net.md): the authorize URL with a
// single-use state bound to the company, the callback that exchanges the code and stores the grant
// sealed, the connections' list, an on-demand sync and the disconnection.
//
// Primary course (connect):
//   1. POST /v1/integrations/{platform} (admin): a random state, stored hashed for 10 minutes with the
//      company, the platform and the redirect URI -> the platform's authorize URL
//   2. the platform sends the browser to the callback: the state is taken (deleted) and must be live
//      and for this platform, else 400 and nothing is stored
//   3. the code is exchanged (same redirect URI); the grant and a new webhook secret are sealed and stored
//   4. the first sync is queued (it registers the webhook) -> 302 to the console
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../clock';
import { NotFoundError, ValidationError } from '../../errors';
import type { Logger } from '../../log';
import { settings } from '../../settings';
import { connectionStatuses, safetyNetPlatforms } from '../../store/entities/safety-net';
import {
  deleteConnection,
  putConnection,
  putState,
  readConnection,
  readConnections,
  setConnectionStatus,
  takeState,
  type SafetyNetPlatform,
} from '../../store/safety-net';
import type { Principal } from '../accounts/accounts';
import { requireAdmin } from './admin';
import { GrantRevokedError, PlatformError, RateLimitedError } from './errors';
import { grantText } from './grants';
import { replacePlatformItems } from './lists';
import { queueSafetyNetWork } from './messages';
import { platformOAuth } from './platforms';

const stateLifetimeMs = 10 * 60_000;
export const unknownPlatformMessage = 'platform must be outreach or salesloft';
export const badStateMessage =
  'This connection link is invalid or has expired: connect again from the console';
export const refusedCodeMessage = 'The platform refused the authorization: connect again from the console';
export const notConnectedMessage = 'This platform is not connected';

export const platformParam = z.enum(safetyNetPlatforms, { error: unknownPlatformMessage });

export const authorizeBodySchema = z.object({ authorizeUrl: z.string() });

const integrationSchema = z.object({
  connectedAt: z.string().describe('ISO 8601 timestamp (UTC)'),
  lastSyncAt: z.string().nullable().describe('The last sync that completed; null before the first'),
  lastSyncError: z.string().nullable().describe("Why the last sync failed; null when it didn't"),
  platform: z.enum(safetyNetPlatforms),
  status: z.enum(connectionStatuses).describe('grant_error: the grant was revoked or expired: connect again'),
});
export const integrationListSchema = z.object({ integrations: z.array(integrationSchema) });

export const callbackQuery = z.object({
  code: z.string().min(1, 'code is required').max(2048).optional(),
  state: z.string().min(1).max(256).optional(),
  error: z.string().max(256).optional(),
});

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** The public origin of the API: PUBLIC_URL, else the address this request reached. */
function apiOrigin(reachedAt: string): string {
  return (settings().PUBLIC_URL ?? reachedAt).replace(/\/$/, '');
}

const callbackPath = (platform: SafetyNetPlatform) => `/v1/integrations/${platform}/callback`;
const webhookPath = (platform: SafetyNetPlatform, companyId: string) =>
  `/v1/integrations/${platform}/webhooks/${companyId}`;

export async function startConnection(
  principal: Principal,
  platform: SafetyNetPlatform,
  reachedAt: string,
  clock: Clock,
): Promise<z.infer<typeof authorizeBodySchema>> {
  const { companyId } = await requireAdmin(principal);
  const oauth = platformOAuth(platform, clock);
  const state = randomBytes(32).toString('base64url');
  const redirectUri = `${apiOrigin(reachedAt)}${callbackPath(platform)}`;
  await putState(
    hashState(state),
    { companyId, platform, redirectUri },
    new Date(clock().getTime() + stateLifetimeMs),
  );
  return { authorizeUrl: oauth.authorizeUrl(redirectUri, state) };
}

/** Steps 2 to 4; the console address to send the browser back to. */
export async function completeConnection(
  platform: SafetyNetPlatform,
  query: z.infer<typeof callbackQuery>,
  reachedAt: string,
  clock: Clock,
  log: Logger,
): Promise<string> {
  if (!query.state) throw new ValidationError(badStateMessage);
  // taken before anything else: a state works once, even when what follows fails
  const state = await takeState(hashState(query.state));
  if (!state || state.platform !== platform || state.expiresAt <= clock().toISOString())
    throw new ValidationError(badStateMessage);
  if (query.error || !query.code) throw new ValidationError(refusedCodeMessage);
  let grant;
  try {
    grant = await platformOAuth(platform, clock, log).exchangeCode(query.code, state.redirectUri);
  } catch (error) {
    if (
      error instanceof GrantRevokedError ||
      error instanceof PlatformError ||
      error instanceof RateLimitedError
    )
      throw new ValidationError(refusedCodeMessage);
    throw error;
  }
  const { companyId } = state;
  await putConnection({
    companyId,
    platform,
    connectedAt: clock().toISOString(),
    grant: grantText(grant),
    webhookSecret: randomBytes(32).toString('hex'),
  });
  const origin = apiOrigin(reachedAt);
  await queueSafetyNetWork({
    companyId,
    platform,
    kind: 'sync',
    webhookUrl: `${origin}${webhookPath(platform, companyId)}`,
  });
  log.info('safety net connected', { companyId, platform });
  return `${(settings().CONSOLE_URL ?? origin).replace(/\/$/, '')}/#/safety-net`;
}

export async function listConnections(companyId: string): Promise<z.infer<typeof integrationListSchema>> {
  const items = await readConnections(companyId);
  return {
    integrations: items.map((item) => ({
      connectedAt: item.connectedAt,
      lastSyncAt: item.lastSyncAt,
      lastSyncError: item.lastSyncError,
      platform: item.platform,
      status: item.status,
    })),
  };
}

/** POST /v1/integrations/{platform}/sync: queued now (a grant in error is tried again too). */
export async function requestSync(companyId: string, platform: SafetyNetPlatform): Promise<void> {
  const connection = await readConnection(companyId, platform);
  if (!connection) throw new NotFoundError(notConnectedMessage);
  await setConnectionStatus(companyId, platform, 'syncing');
  await queueSafetyNetWork({ companyId, platform, kind: 'sync' });
}

/** DELETE /v1/integrations/{platform} (admin): the grant is forgotten, the platform's items leave the lists. */
export async function disconnect(
  principal: Principal,
  platform: SafetyNetPlatform,
  clock: Clock,
): Promise<void> {
  const { companyId } = await requireAdmin(principal);
  const connection = await readConnection(companyId, platform);
  if (!connection) throw new NotFoundError(notConnectedMessage);
  await deleteConnection(companyId, platform);
  await replacePlatformItems(companyId, platform, null, clock);
}
