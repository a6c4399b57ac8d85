// A uniform random sample of a stream of unknown length in fixed memory (reservoir sampling,
// Algorithm R), with a seeded generator so the same seed picks the same rows.

/** A 32-bit seed from a text (FNV-1a), so a job's id picks its sample. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * Keeps `size` items out of all offered, each offered item equally likely to be kept. `offer()` says
 * where the next item goes (or -1: not kept), so a caller only builds the items it keeps.
 */
export class Reservoir<T> {
  private readonly kept: T[] = [];
  private offered = 0;

  constructor(
    readonly size: number,
    private readonly random: () => number,
  ) {}

  /** The slot the next item takes, or -1 when it is not kept; fill the slot with put(). */
  offer(): number {
    const n = this.offered++;
    if (n < this.size) return n;
    const slot = Math.floor(this.random() * (n + 1));
    return slot < this.size ? slot : -1;
  }

  put(slot: number, item: T): void {
    this.kept[slot] = item;
  }

  /** Items offered so far. */
  get seen(): number {
    return this.offered;
  }

  /** The kept items, in slot order. */
  items(): T[] {
    return this.kept.slice(0, Math.min(this.offered, this.size));
  }
}
