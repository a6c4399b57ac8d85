// Standard Webhooks signing of one delivery attempt (https://www.standardwebhooks.com).
import { Webhook } from 'standardwebhooks';

export interface SignedHeaders {
  'content-type': 'application/json';
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one attempt. The id stays the same across retries (receivers deduplicate on it); the
 * timestamp is the attempt's own, so a receiver's replay window accepts a late retry.
 * Throws when the secret is not a valid `whsec_` (base64) secret.
 */
export function signWebhook(input: {
  secret: string;
  webhookId: string;
  body: string;
  at: Date;
}): SignedHeaders {
  const signature = new Webhook(input.secret).sign(input.webhookId, input.at, input.body);
  return {
    'content-type': 'application/json',
    'webhook-id': input.webhookId,
    'webhook-timestamp': String(Math.floor(input.at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
