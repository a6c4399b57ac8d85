// The known-dead and known-complainer address lists (global and per company), behind one interface:
// DynamoDB in the service (functions/store/known-lists.ts), in memory in tests.
import { systemClock, type Clock } from '../../clock';
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

/** How long a lookup's answer is reused: an address imported (or removed) meanwhile applies after this. */
export const KNOWN_LOOKUP_TTL_MS = 10_000;
/** Addresses remembered at most; past it the cache starts over (a burst of new addresses stays bounded). */
const MAX_CACHED_LOOKUPS = 20_000;

interface CachedFlags {
  /** undefined: the address is on no list. */
  flags: KnownFlags | undefined;
  at: number;
}

/**
 * A process's memory of recent lookups in the lists it wraps, answers "on no list" included: the single
 * endpoint sees the same addresses again and again, and the lists change only by an import.
 * A failed lookup is not remembered.
 */
export class CachedKnownLists implements KnownAddressLists {
  private readonly answers = new Map<string, CachedFlags>();

  constructor(
    private readonly lists: KnownAddressLists,
    private readonly clock: Clock = systemClock,
    private readonly ttlMs: number = KNOWN_LOOKUP_TTL_MS,
  ) {}

  async isKnownDead(companyId: string | undefined, email: string): Promise<boolean> {
    return (await this.lookup(companyId, [email])).get(listEmail(email))?.dead ?? false;
  }

  async isKnownComplainer(companyId: string | undefined, email: string): Promise<boolean> {
    return (await this.lookup(companyId, [email])).get(listEmail(email))?.complainer ?? false;
  }

  async lookup(companyId: string | undefined, emails: Iterable<string>): Promise<Map<string, KnownFlags>> {
    const now = this.clock().getTime();
    const flags = new Map<string, KnownFlags>();
    const missing: string[] = [];
    for (const raw of emails) {
      const email = listEmail(raw);
      const cached = this.answers.get(keyOf(companyId, email));
      if (cached === undefined || now - cached.at >= this.ttlMs) missing.push(email);
      else if (cached.flags) flags.set(email, { ...cached.flags });
    }
    if (missing.length === 0) return flags;
    const found = await this.lists.lookup(companyId, missing);
    if (this.answers.size + missing.length > MAX_CACHED_LOOKUPS) this.answers.clear();
    for (const email of missing) {
      const f = found.get(email);
      this.answers.set(keyOf(companyId, email), { flags: f && { ...f }, at: now });
      if (f) flags.set(email, f);
    }
    return flags;
  }
}

const keyOf = (companyId: string | undefined, email: string): string => `${companyId ?? ''}\u0000${email}`;
