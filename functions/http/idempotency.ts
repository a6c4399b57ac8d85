// The Idempotency-Key header on the routes that create work (docs/api.md): the same
// key and body within 24 hours answers with the first response and does nothing again; the same key
// with another body is 422. The first request holds the key while it runs, so two concurrent copies
// never both do the work; a request that fails releases the key, so fixing the body and retrying works.
import { systemClock, type Clock } from '../clock';
import { createHash } from 'node:crypto';
import { ConflictError, UnprocessableError, ValidationError } from '../errors';
import { sortedJson } from '../json';
import {
  claimIdempotencyKey,
  readIdempotencyRecord,
  releaseIdempotencyKey,
  storeIdempotentResponse,
} from '../store/idempotency';
import { idempotencyKey } from '../store/keys';
import type { ApiResponse } from '../middlewares/api';
import type { ApiRequest, Route } from './api-handler';

const idempotencyHeader = 'idempotency-key';
/** How long a key's first response is replayed. */
const idempotencyWindowSeconds = 24 * 3600;
/** A first request holding its key this long without finishing (a crash) gives the key up. */
const holdSeconds = 60;

export const idempotencyMismatchMessage = 'Idempotency-Key reused with a different body';
export const idempotencyInvalidMessage = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
export const idempotencyInProgressMessage =
  'A request with this Idempotency-Key is still in progress; retry in a few seconds';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Wraps a route that creates work so that it honours the Idempotency-Key header. */
export function idempotent(scope: string, route: Route, clock: Clock = systemClock): Route {
  return async (request: ApiRequest) => {
    const key = request.headers[idempotencyHeader];
    if (key === undefined) return route(request);
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ValidationError(idempotencyInvalidMessage);
    const keyOf = idempotencyKey(request.principal.companyId, scope, sha256(key));
    const bodyHash = sha256(sortedJson(request.body ?? null));
    const nowMs = clock().getTime();

    const claimed = await claimIdempotencyKey(
      keyOf,
      bodyHash,
      nowMs,
      holdSeconds * 1000,
      idempotencyWindowSeconds * 1000,
    );
    if (!claimed) {
      const stored = await readIdempotencyRecord(keyOf);
      // Released between the claim and the read: the first request failed; the client may retry.
      if (!stored) throw new ConflictError(idempotencyInProgressMessage);
      if (stored.bodyHash !== bodyHash) throw new UnprocessableError(idempotencyMismatchMessage);
      if (stored.state !== 'done' || !stored.response) throw new ConflictError(idempotencyInProgressMessage);
      request.log.info('idempotent replay', { scope });
      return stored.response as ApiResponse;
    }

    let response: ApiResponse;
    try {
      response = await route(request);
    } catch (error) {
      await releaseIdempotencyKey(keyOf).catch(() => undefined);
      throw error;
    }
    await storeIdempotentResponse(keyOf, response);
    return response;
  };
}
