// Builds a platform's adapters from the settings: the OAuth side (before any grant) and the API side
// over one grant's session.
import type { Clock } from '../../../clock';
import { logger, type Logger } from '../../../log';
import { settings } from '../../../settings';
import type { SafetyNetPlatform } from '../../../store/safety-net';
import { ServiceUnavailableError } from '../../../errors';
import { outreachAdapter, outreachOAuth } from './outreach';
import { salesloftAdapter, salesloftOAuth } from './salesloft';
import { PlatformSession, type GrantKeeper } from './session';
import type { PlatformAdapter, PlatformOAuth } from './types';

export type { PlatformAdapter, PlatformOAuth };

function configOf(platform: SafetyNetPlatform) {
  const s = settings();
  return platform === 'outreach'
    ? {
        apiUrl: s.OUTREACH_API_URL.replace(/\/$/, ''),
        oauthUrl: s.OUTREACH_OAUTH_URL.replace(/\/$/, ''),
        clientId: s.OUTREACH_CLIENT_ID,
        clientSecret: s.OUTREACH_CLIENT_SECRET,
      }
    : {
        apiUrl: s.SALESLOFT_API_URL.replace(/\/$/, ''),
        oauthUrl: s.SALESLOFT_OAUTH_URL.replace(/\/$/, ''),
        clientId: s.SALESLOFT_CLIENT_ID,
        clientSecret: s.SALESLOFT_CLIENT_SECRET,
      };
}

/** A keeper for the token endpoint's calls before a grant exists: it has none to give. */
const noGrant: GrantKeeper = {
  current: () => Promise.reject(new Error('no grant yet')),
  refresh: () => Promise.reject(new Error('no grant yet')),
  heldUntil: () => Promise.resolve(undefined),
  hold: () => Promise.resolve(),
};

export function platformOAuth(
  platform: SafetyNetPlatform,
  clock: Clock,
  log: Logger = logger,
): PlatformOAuth {
  const config = configOf(platform);
  if (!config.clientId || !config.clientSecret)
    // an operator's omission, not the caller's: the platform is not set up on this deployment
    throw new ServiceUnavailableError(60);
  const session = () => new PlatformSession({ platform, keeper: noGrant, clock, log });
  return platform === 'outreach'
    ? outreachOAuth(config, session, clock)
    : salesloftOAuth(config, session, clock);
}

export interface AdapterOptions {
  clock: Clock;
  log: Logger;
  /** A 429 nearer than this is waited out; a later one is a RateLimitedError. */
  maxWaitMs?: number;
}

export function platformAdapter(
  platform: SafetyNetPlatform,
  keeper: GrantKeeper,
  options: AdapterOptions,
): PlatformAdapter {
  const config = configOf(platform);
  const session = new PlatformSession({ platform, keeper, ...options });
  return platform === 'outreach'
    ? outreachAdapter(config, session, options.clock)
    : salesloftAdapter(config, session, options.clock);
}
