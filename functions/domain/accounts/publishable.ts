// Publishable keys (`mv_pub_`): safe to put in a web page, because each is locked to one browser origin,
// may only call the single validation, is limited per visitor IP and per day, and gets a reduced result.
// The signup-form widget (widget/widget.ts) calls the API with one.
import { systemClock, type Clock } from '../../clock';
import { InvalidKeyError, TooManyRequestsError, ValidationError, rateLimitMessage } from '../../errors';
import {
  putNewApiKey,
  putPublishableOrigin,
  readApiKey,
  readPublishableOriginKeyHashes,
  type ApiKeyRecord,
} from '../../store/accounts';
import { publishableCounterKey } from '../../store/keys';
import { countInWindow } from '../../store/rate-counters';
import type { CompletedBody } from '../single-validation/result-body';
import { newKeyRecord } from './accounts';
import { generatePublishableKey, hashApiKey } from './secrets';

/** The one route a publishable key may call (API Gateway's route key). */
export const publishableRouteKey = 'POST /v1/email/validate';

const originRequiredMessage = 'origin must be an http(s) origin such as https://www.example.com';

/** `https://Example.com:443/` -> `https://example.com`; a path, query or other scheme is refused. */
export function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(originRequiredMessage);
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare)
    throw new ValidationError(originRequiredMessage);
  return url.origin;
}

/** Creates a publishable key for a user, usable only from `origin`. The raw key is returned once. */
export async function createPublishableKey(input: {
  companyId: string;
  userId: string;
  userEmail: string;
  name: string;
  origin: string;
}): Promise<{ rawKey: string; record: ApiKeyRecord }> {
  const origin = parseOrigin(input.origin);
  const rawKey = generatePublishableKey();
  const keyHash = hashApiKey(rawKey);
  const record: ApiKeyRecord = { ...newKeyRecord(input, rawKey), origin };
  // The origin item first: a key whose origin item is missing would fail every preflight.
  await putPublishableOrigin(origin, record.keyId, keyHash);
  await putNewApiKey(keyHash, record);
  return { rawKey, record };
}

/** Whether a live publishable key was made for `origin` (a CORS preflight carries no key to check). */
export async function originHasLiveKey(origin: string | undefined): Promise<boolean> {
  if (!origin) return false;
  for (const keyHash of await readPublishableOriginKeyHashes(origin)) {
    const record = await readApiKey(keyHash);
    if (record && !record.revokedAt && record.origin === origin) return true;
  }
  return false;
}

/** 403 unless the call is the one route a publishable key may make, from the key's own origin. */
export function checkPublishableCall(keyOrigin: string, routeKey: string, origin: string | undefined): void {
  if (routeKey !== publishableRouteKey || origin !== keyOrigin) throw new InvalidKeyError();
}

export interface PublishableLimits {
  perIpPerMinute: number;
  perKeyPerDay: number;
}

/**
 * Counts one call of the key from `ip` in this minute and in this UTC day; 429 with Retry-After (to the
 * next minute or the next day) past either limit. The per-IP limit is checked first, so one visitor
 * hammering a form spends only their own allowance.
 */
export async function consumePublishableLimits(
  keyId: string,
  ip: string,
  limits: PublishableLimits,
  clock: Clock = systemClock,
): Promise<void> {
  const now = clock();
  const seconds = Math.floor(now.getTime() / 1000);
  const minute = Math.floor(seconds / 60);
  const perIp = publishableCounterKey(keyId, `IP#${ip}#${minute}`);
  if (!(await countInWindow(perIp, limits.perIpPerMinute, (minute + 2) * 60)))
    throw new TooManyRequestsError(rateLimitMessage, (minute + 1) * 60 - seconds);
  const day = now.toISOString().slice(0, 10);
  const nextDay = Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 86400;
  const perKey = publishableCounterKey(keyId, `DAY#${day}`);
  if (!(await countInWindow(perKey, limits.perKeyPerDay, nextDay + 86400)))
    throw new TooManyRequestsError(rateLimitMessage, nextDay - seconds);
}

/** What a publishable key gets of a completed validation: no domain, mailbox or metadata details. */
export interface ReducedResult {
  email: string;
  result: CompletedBody['result'];
  didYouMean?: string;
}

export function reducedResult(body: CompletedBody): ReducedResult {
  return {
    email: body.email,
    result: { reason: body.result.reason, status: body.result.status, subStatus: body.result.subStatus },
    ...(body.didYouMean === undefined ? {} : { didYouMean: body.didYouMean }),
  };
}
