// The record of an Idempotency-Key (functions/http/idempotency.ts):
// COMPANY#<companyId> / IDEMPOTENCY#<scope>#<sha256 of the key>, ttl 24 h.
import { any, number, string } from 'dynamodb-toolbox';
import type { ItemKey } from '../keys';
import { storedEntity } from './declare';

const declaration = storedEntity('idempotencyKey', {
  entity: string().const('idempotencyKey'),
  bodyHash: string(),
  state: string().enum('pending', 'done'),
  holdUntilMs: number(),
  expiresAtMs: number(),
  ttl: number(),
  /** The first response, as JSON carries it. */
  response: any().optional(),
});

export type IdempotencyRecord = ReturnType<typeof declaration.parse>;

export const idempotencyRecord = {
  ...declaration,
  /** The stored record of a key (`key` from idempotencyKey in ../keys.ts). */
  item: (key: ItemKey, fields: Omit<IdempotencyRecord, 'pk' | 'sk' | 'entity'>) =>
    declaration.item({ ...key, entity: 'idempotencyKey', ...fields }),
};
