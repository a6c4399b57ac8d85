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

  remember(raw: string, v: DomainVerdict): void {
    if (this.size >= MAX_RAW_ALIASES) {
      this.byHash.clear();
      this.size = 0;
    }
    const h = hashRange(raw, 0, raw.length);
    const head = this.byHash.get(h);
    for (let e = head; e !== undefined; e = e.next) {
      if (e.raw === raw) {
        e.verdict = v;
        return;
      }
    }
    this.byHash.set(h, { raw, verdict: v, next: head });
    this.size++;
  }
}
