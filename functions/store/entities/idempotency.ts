// The record of an Idempotency-Key (functions/http/idempotency.ts):
// COMPANY#<companyId> / IDEMPOTENCY#<scope>#<sha256 of the key>, ttl 24 h.
import { any, Entity, item, number, string } from 'dynamodb-toolbox';
import type { ItemKey } from '../keys';
import { declared } from './declare';
import { mailvetTable } from './table';

const entity = new Entity({
  name: 'idempotencyKey',
  table: mailvetTable,
  entityAttribute: false,
  timestamps: false,
  schema: item({
    pk: string().key(),
    sk: string().key(),
    entity: string().const('idempotencyKey'),
    bodyHash: string(),
    state: string().enum('pending', 'done'),
    holdUntilMs: number(),
    expiresAtMs: number(),
    ttl: number(),
    /** The first response, as JSON carries it. */
    response: any().optional(),
  }),
});
const declaration = declared(entity);

export type IdempotencyRecord = ReturnType<typeof declaration.parse>;

export const idempotencyRecord = {
  ...declaration,
  /** The stored record of a key (`key` from idempotencyKey in ../keys.ts). */
  item: (key: ItemKey, fields: Omit<IdempotencyRecord, 'pk' | 'sk' | 'entity'>) =>
    declaration.item({ ...key, entity: 'idempotencyKey', ...fields }),
};
