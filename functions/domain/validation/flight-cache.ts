// A bounded TTL cache whose loads are single-flight (concurrent misses of one key share one load)
// and run under a concurrency limit, so a bulk file with 50,000 domains does not flood the resolver.
import { systemClock, type Clock } from '../../clock';

interface Entry<V> {
  value: V;
  expiresAt: number;
}

class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export class FlightCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly inflight = new Map<string, Promise<V>>();
  private readonly semaphore: Semaphore;

  constructor(
    private readonly maxEntries: number,
    concurrency: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.semaphore = new Semaphore(concurrency);
  }

  /** The cached value, or undefined when missing or expired. */
  peek(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined || e.expiresAt <= this.clock().getTime()) return undefined;
    return e.value;
  }

  /** When the cached value of `key` expires (epoch ms); 0 when nothing is cached. */
  expiresAt(key: string): number {
    return this.entries.get(key)?.expiresAt ?? 0;
  }

  /** Keeps `value` for ttlMs; a TTL of 0 or less keeps nothing (and drops an older value of the key). */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) {
      this.entries.delete(key);
      return;
    }
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Map keeps insertion order: the first key is the oldest entry
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.clock().getTime() + ttlMs });
  }

  /** The cached value, or one load shared by every concurrent caller; load returns the value and its TTL. */
  get(key: string, load: () => Promise<{ value: V; ttlMs: number }>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return Promise.resolve(hit);
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.semaphore
        .run(load)
        .then(({ value, ttlMs }) => {
          this.set(key, value, ttlMs);
          return value;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
