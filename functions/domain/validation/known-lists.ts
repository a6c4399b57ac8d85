// The known-dead and known-complainer address lists (global and per company), behind one interface:
// DynamoDB in the service (functions/store/known-lists.ts), in memory in tests.
import { GLOBAL_SCOPE, listEmail, type ListKind } from '../../store/keys';
import type { KnownFlags } from './types';

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
