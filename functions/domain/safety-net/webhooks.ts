// The platforms' webhooks, the fast path of the look-ahead: a delivery whose signature holds (Outreach:
// hex HMAC-SHA256 of the raw body in Outreach-Webhook-Signature; Salesloft: hex HMAC-SHA1 in
// x-salesloft-signature, keyed with the connection's secret) queues a look-ahead of that connection at
// once. Anything else is refused without a hint of why.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, NotFoundError } from '../../errors';
import type { Logger } from '../../log';
import { openWebhookSecret, readConnection, type SafetyNetPlatform } from '../../store/safety-net';
import { queueSafetyNetWork } from './messages';

export const badSignatureMessage = 'Invalid signature';

class BadSignatureError extends AppError {
  readonly statusCode = 401;
  constructor() {
    super(badSignatureMessage);
  }
}

const signatureHeader: Record<SafetyNetPlatform, string> = {
  outreach: 'outreach-webhook-signature',
  salesloft: 'x-salesloft-signature',
};
const algorithm: Record<SafetyNetPlatform, 'sha256' | 'sha1'> = { outreach: 'sha256', salesloft: 'sha1' };

export function webhookSignature(platform: SafetyNetPlatform, secret: string, rawBody: string): string {
  return createHmac(algorithm[platform], secret).update(rawBody, 'utf8').digest('hex');
}

export function signatureHolds(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(given.trim().toLowerCase(), 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

const uuidLike = /^[0-9a-f-]{1,64}$/i;

export async function receiveWebhook(
  platform: SafetyNetPlatform,
  companyId: string,
  rawBody: string,
  headers: Record<string, string>,
  log: Logger,
): Promise<void> {
  if (!uuidLike.test(companyId)) throw new NotFoundError('Not found');
  const connection = await readConnection(companyId, platform);
  if (!connection) throw new NotFoundError('Not found');
  const secret = await openWebhookSecret(connection);
  if (!signatureHolds(webhookSignature(platform, secret, rawBody), headers[signatureHeader[platform]])) {
    log.warn('webhook signature refused', { companyId, platform });
    throw new BadSignatureError();
  }
  await queueSafetyNetWork({ companyId, platform, kind: 'lookahead' });
}
