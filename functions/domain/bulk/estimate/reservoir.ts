// A uniform random sample of a stream of unknown length in fixed memory, with a seeded generator so
// the same seed picks the same rows. Algorithm L (Li, 1994): instead of one random draw per item
// (Algorithm R), it draws the gap to the next kept item, so a 100,000-row file costs about
// size * (1 + ln(rows / size)) draws, not 100,000. Each item is still kept with the same probability.

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
  /** Algorithm L's running weight, and the index of the next item to keep once the reservoir is full. */
  private weight = 1;
  private nextKept = 0;

  constructor(
    readonly size: number,
    private readonly random: () => number,
  ) {
    if (size > 0) {
      this.weight = Math.exp(Math.log(this.unit()) / size);
      this.nextKept = size + this.gap();
    }
  }

  /** The slot the next item takes, or -1 when it is not kept; fill the slot with put(). */
  offer(): number {
    const n = this.offered++;
    if (n < this.size) return n;
    if (n !== this.nextKept) return -1;
    const slot = Math.floor(this.random() * this.size);
    this.weight *= Math.exp(Math.log(this.unit()) / this.size);
    this.nextKept = n + 1 + this.gap();
    return slot;
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

  /** Items skipped before the next kept one: geometric with the current weight. */
  private gap(): number {
    const skip = Math.floor(Math.log(this.unit()) / Math.log(1 - this.weight));
    // weight 1 (a draw of exactly 1) makes log(0): keep the very next item
    return Number.isFinite(skip) && skip > 0 ? skip : 0;
  }

  /** A draw in (0, 1]: its logarithm is finite. */
  private unit(): number {
    return 1 - this.random();
  }
}
