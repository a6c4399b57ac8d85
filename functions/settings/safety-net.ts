// Settings of the Safety Net connections (docs/safety-net.md): where each sales-engagement platform
// answers (so a test server can stand in for it), the OAuth client of each, and how often mailvet syncs
// and reads scheduled emails. Spread into the schema of functions/settings.ts.
import { z } from 'zod';

/** Minutes, decimals accepted (0.1 in tests); AWS rounds a schedule up to at least 1 minute. */
const minutes = (fallback: number) => z.coerce.number().positive().default(fallback);
const url = (fallback: string) => z.url().default(fallback);

export const safetyNetSettings = {
  OUTREACH_API_URL: url('https://api.outreach.io/api/v2'),
  OUTREACH_OAUTH_URL: url('https://api.outreach.io/oauth'),
  SALESLOFT_API_URL: url('https://api.salesloft.com/v2'),
  SALESLOFT_OAUTH_URL: url('https://accounts.salesloft.com/oauth'),
  /** The OAuth clients mailvet is registered as (empty: connecting that platform answers 503). */
  OUTREACH_CLIENT_ID: z.string().default(''),
  OUTREACH_CLIENT_SECRET: z.string().default(''),
  SALESLOFT_CLIENT_ID: z.string().default(''),
  SALESLOFT_CLIENT_SECRET: z.string().default(''),
  /** How often every connection is synced. */
  SAFETY_NET_SYNC_MINUTES: minutes(15),
  /** How often every scheduled email of every connection is read. */
  SAFETY_NET_LOOKAHEAD_MINUTES: minutes(5),
  /**
   * The API's public address (`https://api.example.com`): the base of OAuth redirect URIs and webhook
   * URLs. Unset: the address the request reached the API at.
   */
  PUBLIC_URL: z.url().optional(),
  /** Where the OAuth callback sends the browser back to (unset: the API's own origin, as locally). */
  CONSOLE_URL: z.url().optional(),
};
