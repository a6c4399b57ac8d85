// Raw domain text as written in input (any case, IDN) -> its domain verdict, so the bulk hot path skips
// normalisation. Keyed by fnv1a of the text and chained on collisions: a lookup hashes the domain part of
// an address in place, without slicing it out.
import { fnv1a } from './hash';
import type { DomainVerdict } from './types';

/** Entries kept before the index starts over (the input of a long-lived process is unbounded). */
const MAX_RAW_ALIASES = 1_000_000;
// bound once: see classify.ts on import getters in the hot path
const hashRange = fnv1a;

interface RawAlias {
  raw: string;
  verdict: DomainVerdict;
  /** Until when (epoch ms) the verdict is the cache's own, so resolving the text again would give it. */
  freshUntil: number;
  next: RawAlias | undefined;
}

export class RawDomainIndex {
  private readonly byHash = new Map<number, RawAlias>();
  private size = 0;

  /** The verdict remembered for the domain written at address[start, end). */
  find(address: string, start: number, end: number): DomainVerdict | undefined {
    const len = end - start;
    for (let e = this.byHash.get(hashRange(address, start, end)); e !== undefined; e = e.next) {
      if (e.raw.length === len && address.startsWith(e.raw, start)) return e.verdict;
    }
    return undefined;
  }

  /** Whether the text's verdict is remembered and still fresh at nowMs (remember's freshUntil). */
  isFresh(raw: string, nowMs: number): boolean {
    for (let e = this.byHash.get(hashRange(raw, 0, raw.length)); e !== undefined; e = e.next) {
      if (e.raw === raw) return e.freshUntil > nowMs;
    }
    return false;
  }

  /** @param freshUntil until when v stays the domain's verdict (0: to be resolved again when asked) */
  remember(raw: string, v: DomainVerdict, freshUntil = 0): void {
    if (this.size >= MAX_RAW_ALIASES) {
      this.byHash.clear();
      this.size = 0;
    }
    const h = hashRange(raw, 0, raw.length);
    const head = this.byHash.get(h);
    for (let e = head; e !== undefined; e = e.next) {
      if (e.raw === raw) {
        e.verdict = v;
        e.freshUntil = freshUntil;
        return;
      }
    }
    this.byHash.set(h, { raw, verdict: v, freshUntil, next: head });
    this.size++;
  }
}

/**
 * The distinct domain texts of one batch (bulk: a chunk), each found by hashing an address's domain part
 * in place: a row costs no slice and no string hashing, and each distinct text is sliced once. Slot n is
 * names[n]; an open-addressing table of slots keyed by fnv1a.
 */
export class BatchDomains {
  readonly names: string[] = [];
  private readonly hashes: number[] = [];
  private table = new Int32Array(1024).fill(-1);

  /** The slot of the domain written at address[start, end), added when new. */
  slotOf(address: string, start: number, end: number): number {
    const hash = hashRange(address, start, end);
    const mask = this.table.length - 1;
    const len = end - start;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const slot = this.table[i]!;
      if (slot < 0) {
        const added = this.names.length;
        this.names.push(address.slice(start, end));
        this.hashes.push(hash);
        this.table[i] = added;
        if (added * 2 >= this.table.length) this.grow();
        return added;
      }
      if (this.hashes[slot] === hash) {
        const name = this.names[slot]!;
        if (name.length === len && address.startsWith(name, start)) return slot;
      }
    }
  }

  private grow(): void {
    const table = new Int32Array(this.table.length * 2).fill(-1);
    const mask = table.length - 1;
    for (let slot = 0; slot < this.names.length; slot++) {
      let i = this.hashes[slot]! & mask;
      while (table[i]! >= 0) i = (i + 1) & mask;
      table[i] = slot;
    }
    this.table = table;
  }
}
