// SOCKS5 proxies for port 25 (SMTP_SOCKS_PROXY, comma-separated): handed out round-robin, each failure
// counted per proxy. A proxy that failed recently is skipped while a healthier one exists; a failing
// proxy says nothing about a mailbox, so its sessions end as 'proxy_failed' and the DNS verdict stands.
import { systemClock, type Clock } from '../../clock';

export interface ProxyStats {
  url: string;
  uses: number;
  failures: number;
  /** Failures since the last success: a proxy with consecutive failures is benched for a while. */
  consecutiveFailures: number;
  benchedUntil: number;
}

export class ProxyPool {
  private readonly stats: ProxyStats[];
  private next = 0;

  constructor(
    urls: readonly string[],
    private readonly benchMs = 30_000,
    private readonly clock: Clock = systemClock,
  ) {
    this.stats = urls.map((url) => ({ url, uses: 0, failures: 0, consecutiveFailures: 0, benchedUntil: 0 }));
  }

  /** socks5://... list from the setting; empty entries are ignored; bad URLs throw naming the entry. */
  static parse(setting: string | undefined, benchMs?: number, clock?: Clock): ProxyPool | null {
    const urls = (setting ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    if (urls.length === 0) return null;
    // Entries are named by position: they may carry credentials, and this message reaches the logs.
    urls.forEach((url, index) => {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new Error(`SMTP_SOCKS_PROXY: entry ${index + 1} is not a URL (socks5://[user:pass@]host:port)`);
      }
      if (parsed.protocol !== 'socks5:' && parsed.protocol !== 'socks:')
        throw new Error(`SMTP_SOCKS_PROXY: entry ${index + 1} is not a socks5:// URL`);
    });
    return new ProxyPool(urls, benchMs, clock);
  }

  get size(): number {
    return this.stats.length;
  }

  /** The next proxy in turn, skipping benched ones unless every proxy is benched. */
  pick(): string {
    const now = this.clock().getTime();
    for (let i = 0; i < this.stats.length; i++) {
      const s = this.stats[(this.next + i) % this.stats.length]!;
      if (s.benchedUntil <= now) {
        this.next = (this.next + i + 1) % this.stats.length;
        s.uses++;
        return s.url;
      }
    }
    const s = this.stats[this.next % this.stats.length]!;
    this.next = (this.next + 1) % this.stats.length;
    s.uses++;
    return s.url;
  }

  succeeded(url: string): void {
    const s = this.stats.find((x) => x.url === url);
    if (s) s.consecutiveFailures = 0;
  }

  /** Counts a failure; the second consecutive failure benches the proxy for benchMs. */
  failed(url: string): void {
    const s = this.stats.find((x) => x.url === url);
    if (!s) return;
    s.failures++;
    s.consecutiveFailures++;
    if (s.consecutiveFailures >= 2) s.benchedUntil = this.clock().getTime() + this.benchMs;
  }

  snapshot(): ProxyStats[] {
    return this.stats.map((s) => ({ ...s }));
  }
}

const pools = new Map<string, ProxyPool | null>();

/** One pool per setting value per process, so failure counts are shared by every probe of the process. */
export function proxyPoolFor(setting: string | undefined): ProxyPool | null {
  const key = setting ?? '';
  if (!pools.has(key)) pools.set(key, ProxyPool.parse(setting));
  return pools.get(key) ?? null;
}
