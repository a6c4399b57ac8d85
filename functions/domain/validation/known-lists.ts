// The known-dead and known-complainer address lists (global and per company), behind one interface:
// DynamoDB in the service, in memory in tests.
import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KnownFlags } from './types';
import { GLOBAL_SCOPE, kindOfSortKey, knownAddressKey, listEmail, type ListKind } from './list-keys';

export interface KnownAddressLists {
  isKnownDead(companyId: string | undefined, email: string): Promise<boolean>;
  isKnownComplainer(companyId: string | undefined, email: string): Promise<boolean>;
  /** Flags of many addresses at once (bulk): keyed by listEmail(email); addresses on no list are absent. */
  lookup(companyId: string | undefined, emails: Iterable<string>): Promise<Map<string, KnownFlags>>;
}

const scopesOf = (companyId: string | undefined): string[] =>
  companyId ? [GLOBAL_SCOPE, companyId] : [GLOBAL_SCOPE];

function mark(flags: Map<string, KnownFlags>, email: string, kind: ListKind): void {
  const f = flags.get(email) ?? { dead: false, complainer: false };
  if (kind === 'dead') f.dead = true;
  else f.complainer = true;
  flags.set(email, f);
}

/** Lists held in memory: tests, and a process that loads a list once. */
export class InMemoryKnownLists implements KnownAddressLists {
  private readonly entries = new Set<string>();

  add(scope: string, kind: ListKind, email: string): this {
    this.entries.add(`${scope}\u0000${kind}\u0000${listEmail(email)}`);
    return this;
  }

  private has(companyId: string | undefined, kind: ListKind, email: string): boolean {
    return scopesOf(companyId).some((s) => this.entries.has(`${s}\u0000${kind}\u0000${listEmail(email)}`));
  }

  async isKnownDead(companyId: string | undefined, email: string): Promise<boolean> {
    return this.has(companyId, 'dead', email);
  }

  async isKnownComplainer(companyId: string | undefined, email: string): Promise<boolean> {
    return this.has(companyId, 'complainer', email);
  }

  async lookup(companyId: string | undefined, emails: Iterable<string>): Promise<Map<string, KnownFlags>> {
    const flags = new Map<string, KnownFlags>();
    for (const raw of emails) {
      const email = listEmail(raw);
      if (this.has(companyId, 'dead', email)) mark(flags, email, 'dead');
      if (this.has(companyId, 'complainer', email)) mark(flags, email, 'complainer');
    }
    return flags;
  }
}

/** No lists at all (the default when none is configured). */
export const NO_KNOWN_LISTS: KnownAddressLists = {
  isKnownDead: async () => false,
  isKnownComplainer: async () => false,
  lookup: async () => new Map(),
};

const BATCH_GET_LIMIT = 100;
const MAX_UNPROCESSED_ROUNDS = 8;

/** The lists in the single table (keys in list-keys.ts), read with BatchGet. */
export class DynamoKnownLists implements KnownAddressLists {
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

  async lookup(companyId: string | undefined, emails: Iterable<string>): Promise<Map<string, KnownFlags>> {
    const unique = new Set<string>();
    for (const e of emails) unique.add(listEmail(e));
    const keys: Array<Record<string, string>> = [];
    for (const email of unique)
      for (const scope of scopesOf(companyId))
        for (const kind of ['dead', 'complainer'] as const)
          keys.push({ ...knownAddressKey(scope, kind, email) });
    const flags = new Map<string, KnownFlags>();
    for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) {
      let request: Array<Record<string, string>> = keys.slice(i, i + BATCH_GET_LIMIT);
      for (let round = 0; request.length > 0; round++) {
        if (round >= MAX_UNPROCESSED_ROUNDS)
          throw new Error('Known-address lists: BatchGet kept returning unprocessed keys');
        if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
        const out: BatchGetCommandOutput = await this.client.send(
          new BatchGetCommand({
            RequestItems: { [this.table]: { Keys: request, ProjectionExpression: 'pk, sk, email' } },
          }),
        );
        for (const item of out.Responses?.[this.table] ?? []) {
          const kind = kindOfSortKey(String(item.sk));
          if (kind && typeof item.email === 'string') mark(flags, item.email, kind);
        }
        request =
          (out.UnprocessedKeys?.[this.table]?.Keys as Array<Record<string, string>> | undefined) ?? [];
      }
    }
    return flags;
  }
}
