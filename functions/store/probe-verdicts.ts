// Storage of the probe verdict of each address (docs/validation.md, "Verdict cache"). A domain's verdicts
// are spread over `shardsPerDomain` items by a hash of the address (PROBE#<domain>#<shard> / VERDICTS),
// each entry an attribute `@<local part>` = {p: probe, e: expiry in epoch seconds}. Storing the verdicts
// of a probe batch costs one write per shard it touches, not one per address: that is what bounded the
// probe stage on DynamoDB Local, and on DynamoDB a write of a small shard costs one unit for several
// addresses. Each entry expires on its own (a read ignores an expired one); the item's TTL is its newest
// entry's expiry. A shard holds at most `entriesPerShard` writes (which bounds an item to some 40 KB, so
// a write never costs more than ~40 units), then starts over with the new entries: a lost entry costs
// one probe again, never a wrong verdict. What is worth keeping, and for how long, is the caller's
// decision (domain/probe/verdict-cache.ts). The item is the probeVerdictShard entity (./entities/probes.ts);
// its entries, named after addresses, are read and written by hand here: the entity library declares
// fixed attribute names only.
import { createHash } from 'node:crypto';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { isConditionFailure } from './conditions';
import { batchGetAll, send, slices } from './dynamodb';
import { parseVerdictEntry, verdictEntryAttribute, type VerdictEntry } from './entities/probes';
import { probeVerdictShardKey } from './keys';
import { ttlAttribute } from './table';

/** Items a domain's verdicts are spread over. */
export const shardsPerDomain = 8;
/** Entries a shard takes before it starts over: 8 x 800 = 6,400 verdicts per domain at once. */
export const entriesPerShard = 800;
/** Entries set or read by one request (keeps each expression well under DynamoDB's 4 KB). */
const entriesPerRequest = 100;
const entryAttribute = verdictEntryAttribute;
type Entry = VerdictEntry;

interface Address {
  email: string;
  domain: string;
  local: string;
  shard: number;
}

/** The shard of an address among its domain's items: a hash, so a domain's addresses spread evenly. */
export function shardOf(email: string): number {
  return createHash('sha1').update(email.toLowerCase()).digest().readUInt16BE(0) % shardsPerDomain;
}

function addressOf(email: string): Address {
  const lower = email.toLowerCase();
  const at = lower.lastIndexOf('@');
  return {
    email: lower,
    domain: lower.slice(at + 1),
    local: lower.slice(0, Math.max(0, at)),
    shard: shardOf(lower),
  };
}

/** Distinct addresses grouped by the shard item that holds them. */
function byShard(emails: Iterable<string>): Map<string, Address[]> {
  const groups = new Map<string, Address[]>();
  for (const email of emails) {
    const a = addressOf(email);
    const id = `${a.domain}#${a.shard}`;
    groups.set(id, [...(groups.get(id) ?? []), a]);
  }
  return groups;
}

const shardKey = (a: Address) => probeVerdictShardKey(a.domain, a.shard);

/** `#a0, #a1, ...` for the local parts: attribute names stay out of the expression text. */
function entryNames(addresses: readonly Address[]): Record<string, string> {
  return Object.fromEntries(addresses.map((a, i) => [`#a${i}`, entryAttribute(a.local)]));
}

export class ProbeVerdictItems {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The stored verdicts of `emails` (lower-cased keys) whose expiry is after `nowSeconds`. */
  async get(emails: readonly string[], nowSeconds: number): Promise<Map<string, string>> {
    const unique = new Map<string, Address>();
    for (const email of emails) unique.set(email.toLowerCase(), addressOf(email));
    const out = new Map<string, string>();
    // a BatchGet per 100 addresses, of their shards, projected on their entries (a shard item may be large)
    for (const addresses of slices([...unique.values()], entriesPerRequest)) {
      const names = entryNames(addresses);
      const keys = new Map(addresses.map((a) => [`${a.domain}#${a.shard}`, { ...shardKey(a) }]));
      const items = await batchGetAll([...keys.values()], {
        doc: this.doc,
        table: this.table,
        projection: ['pk', ...Object.keys(names)].join(', '),
        names,
      });
      const shards = new Map(items.map((item) => [item.pk, item]));
      for (const a of addresses) {
        const entry = parseVerdictEntry(shards.get(shardKey(a).pk)?.[entryAttribute(a.local)]);
        // entries expire on their own, and TTL deletion is lazy (up to days late): an expired one is a miss
        if (entry && entry.e > nowSeconds) out.set(a.email, entry.p);
      }
    }
    return out;
  }

  /** Stores each verdict under its address until `expirySeconds` (epoch seconds): one write per shard. */
  async put(verdicts: Iterable<[string, string]>, expirySeconds: number): Promise<void> {
    const probes = new Map<string, string>();
    for (const [email, probe] of verdicts) probes.set(email.toLowerCase(), probe);
    await Promise.all(
      [...byShard(probes.keys()).values()]
        .flatMap((group) => slices(group, entriesPerRequest))
        .map((addresses) =>
          this.putShard(
            addresses,
            addresses.map((a) => ({ p: probes.get(a.email)!, e: expirySeconds })),
            expirySeconds,
          ),
        ),
    );
  }

  /** Sets the entries in their shard item, which starts over when it is full. */
  private async putShard(addresses: Address[], entries: Entry[], expirySeconds: number): Promise<void> {
    const key = shardKey(addresses[0]!);
    try {
      // an update creates a missing item, so concurrent writers of a new shard need nothing more
      await send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: `SET ${addresses.map((_, i) => `#a${i} = :v${i}`).join(', ')}, #ttl = :ttl ADD #n :n`,
          ConditionExpression: 'attribute_not_exists(#n) OR #n <= :room',
          ExpressionAttributeNames: { ...entryNames(addresses), '#ttl': ttlAttribute, '#n': 'n' },
          ExpressionAttributeValues: {
            ...Object.fromEntries(entries.map((entry, i) => [`:v${i}`, entry])),
            ':ttl': expirySeconds,
            ':n': entries.length,
            ':room': entriesPerShard - entries.length,
          },
        }),
        { doc: this.doc },
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // full: the shard starts over with these entries (a concurrent writer's may be lost: a miss, later)
      await send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...key,
            ...Object.fromEntries(addresses.map((a, i) => [entryAttribute(a.local), entries[i]!])),
            n: entries.length,
            [ttlAttribute]: expirySeconds,
          },
        }),
        { doc: this.doc },
      );
    }
  }
}

/** The verdict items in the service's table, on the process's client. */
export function tableProbeVerdicts(): ProbeVerdictItems {
  return new ProbeVerdictItems(dynamoDb(), tableName());
}
