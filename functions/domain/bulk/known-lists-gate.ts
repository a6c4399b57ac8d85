// Known-address lists for bulk chunks: the per-address lookup (BatchGet of 4 keys per address) costs
// more than everything else a chunk does, so it runs only when one of the lists that apply to the
// company actually holds an address. Whether a list is empty is one Query on its index, cached briefly.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../clients/dynamodb';
import { globalIndexes } from '../../store/table';
import { DynamoKnownLists, NO_KNOWN_LISTS, type KnownAddressLists } from '../validation';
import { GLOBAL_SCOPE, LIST_KINDS, knownAddressIndex } from '../validation/list-keys';

/** How long "this company's lists are empty" is trusted: a list imported meanwhile applies after this. */
const emptinessTtlMs = 30_000;

const checked = new Map<string, { nonEmpty: boolean; at: number }>();

async function listHoldsAny(scope: string): Promise<boolean> {
  for (const kind of LIST_KINDS) {
    const out = await dynamoDb().send(
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

async function scopeNonEmpty(scope: string, now: number): Promise<boolean> {
  const cached = checked.get(scope);
  if (cached && now - cached.at < emptinessTtlMs) return cached.nonEmpty;
  const nonEmpty = await listHoldsAny(scope);
  checked.set(scope, { nonEmpty, at: now });
  return nonEmpty;
}

let dynamoLists: DynamoKnownLists | undefined;

/** The lists to consult for a company's chunk: the real ones, or none when every applicable list is empty. */
async function knownListsFor(companyId: string, now = Date.now()): Promise<KnownAddressLists> {
  const [global, own] = await Promise.all([scopeNonEmpty(GLOBAL_SCOPE, now), scopeNonEmpty(companyId, now)]);
  if (!global && !own) return NO_KNOWN_LISTS;
  dynamoLists ??= new DynamoKnownLists(dynamoDb(), tableName());
  return dynamoLists;
}

/** KnownAddressLists that skips the per-address lookups while the applicable lists are empty. */
export const gatedKnownLists: KnownAddressLists = {
  isKnownDead: async (companyId, email) =>
    (await knownListsFor(companyId ?? GLOBAL_SCOPE)).isKnownDead(companyId, email),
  isKnownComplainer: async (companyId, email) =>
    (await knownListsFor(companyId ?? GLOBAL_SCOPE)).isKnownComplainer(companyId, email),
  lookup: async (companyId, emails) =>
    (await knownListsFor(companyId ?? GLOBAL_SCOPE)).lookup(companyId, emails),
};
