// Storage of the known-dead and known-complainer address lists (keys in ./keys.ts): BatchGet lookups,
// the import's batched writes, and whether a list holds anything at all.
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { batchGetAll, batchWriteAll, send } from './dynamodb';
import {
  GLOBAL_SCOPE,
  LIST_KINDS,
  kindOfSortKey,
  knownAddressIndex,
  knownAddressKey,
  listEmail,
  type ListKind,
} from './keys';
import { globalIndexes } from './table';
import { knownAddressEntity } from './entities/known-lists';

/** What the lists say of one address (the engine's KnownFlags). */
interface Flags {
  dead: boolean;
  complainer: boolean;
}

const scopesOf = (companyId: string | undefined): string[] =>
  companyId ? [GLOBAL_SCOPE, companyId] : [GLOBAL_SCOPE];

/** The lists in the single table, read with BatchGet (the engine's KnownAddressLists). */
export class DynamoKnownLists {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async isKnownDead(companyId: string | undefined, email: string): Promise<boolean> {
    return (await this.lookup(companyId, [email])).get(listEmail(email))?.dead ?? false;
  }

  async isKnownComplainer(companyId: string | undefined, email: string): Promise<boolean> {
    return (await this.lookup(companyId, [email])).get(listEmail(email))?.complainer ?? false;
  }

  /** Flags of many addresses (global and company lists), keyed by listEmail; unlisted ones are absent. */
  async lookup(companyId: string | undefined, emails: Iterable<string>): Promise<Map<string, Flags>> {
    const unique = new Set<string>();
    for (const e of emails) unique.add(listEmail(e));
    const keys: Array<Record<string, string>> = [];
    for (const email of unique)
      for (const scope of scopesOf(companyId))
        for (const kind of LIST_KINDS) keys.push({ ...knownAddressKey(scope, kind, email) });
    const flags = new Map<string, Flags>();
    const items = await batchGetAll(keys, {
      doc: this.client,
      table: this.table,
      concurrency: 1,
      projection: 'pk, sk, email',
    });
    // the bulk path's hot read (thousands of addresses a second): the two projected attributes are
    // checked by hand here rather than by the knownAddress entity's parse
    for (const item of items) {
      const kind = kindOfSortKey(String(item.sk));
      if (kind && typeof item.email === 'string') {
        const f = flags.get(item.email) ?? { dead: false, complainer: false };
        if (kind === 'dead') f.dead = true;
        else f.complainer = true;
        flags.set(item.email, f);
      }
    }
    return flags;
  }
}

let processLists: DynamoKnownLists | undefined;

/** The process's lists on the service's table. */
export function dynamoKnownLists(): DynamoKnownLists {
  processLists ??= new DynamoKnownLists(dynamoDb(), tableName());
  return processLists;
}

/** Addresses (already checked and lower-cased) to put into one list. */
export interface KnownAddressBatch {
  kind: ListKind;
  scope: string;
  emails: readonly string[];
  importedAt: string;
}

/**
 * Writes batches into the table of this client: 25 items per BatchWrite, unprocessed items retried;
 * an address already there is only refreshed.
 */
export const knownAddressWriter =
  (client: DynamoDBDocumentClient, table: string) =>
  (input: KnownAddressBatch): Promise<void> =>
    putKnownAddresses(client, table, input);

async function putKnownAddresses(
  client: DynamoDBDocumentClient,
  table: string,
  input: KnownAddressBatch,
): Promise<void> {
  const items = input.emails.map((email) =>
    knownAddressEntity.item({
      ...knownAddressKey(input.scope, input.kind, email),
      ...knownAddressIndex(input.scope, input.kind, email),
      email,
      kind: input.kind,
      scope: input.scope,
      importedAt: input.importedAt,
    }),
  );
  await batchWriteAll(
    items.map((Item) => ({ PutRequest: { Item } })),
    { doc: client, table, concurrency: 1 },
  );
}

/** Whether any list of the scope (dead or complainer) holds an address: one Query per kind, Limit 1. */
export async function knownListHoldsAny(scope: string): Promise<boolean> {
  for (const kind of LIST_KINDS) {
    const out = await send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: globalIndexes[0].name,
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': knownAddressIndex(scope, kind, '').gsi1pk },
        Limit: 1,
      }),
    );
    if ((out.Items ?? []).length > 0) return true;
  }
  return false;
}
