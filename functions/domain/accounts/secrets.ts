// Random secrets and their hashes: API keys (stored only as SHA-256) and webhook signing secrets.
import { createHash, randomBytes } from 'node:crypto';

/** Recognisable prefix of every generated API key (secret scanners can match `mv_live_`). */
const apiKeyPrefix = 'mv_live_';

/** A new API key: the prefix and 256 random bits, base64url. */
export function generateApiKey(): string {
  return apiKeyPrefix + randomBytes(32).toString('base64url');
}

/** Prefix of a publishable key: safe in a web page, limited to the widget's call from one origin. */
const publishableKeyPrefix = 'mv_pub_';

export function generatePublishableKey(): string {
  return publishableKeyPrefix + randomBytes(24).toString('base64url');
}

export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

/** A Standard Webhooks signing secret: `whsec_` and 192 random bits, base64. */
export function generateWebhookSecret(): string {
  return 'whsec_' + randomBytes(24).toString('base64');
}
