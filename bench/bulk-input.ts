// The bulk benchmarks' input: the generated CSV (bench/bulk.ts, bench/bulk-chunk.ts) and the DNS zones
// its domains resolve in.
import type { Zones } from '../test/unit/validation/fixtures/dns-server';

const TARGET_BYTES = 100 * 1024 * 1024 - 64 * 1024;
export const DOMAINS = 2_000;

export const HEADER = 'id,name,email,company,note';

/**
 * ~1.1M rows: quoted fields, some newlines inside quotes, skewed domains, 3% invalid addresses. Each
 * data record (without its line ending) and its email cell go to `onRecord`; the same seed gives the
 * same rows every time, so the check regenerates them rather than holding 1.1M strings during the run
 * (`maxRows`: the first that many of them).
 */
export function generateRecords(onRecord: (record: string, email: string) => void, maxRows = Infinity): void {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const names = ['Ann', 'Bob', 'Chloé', 'Dmitri', 'Eve', 'François', 'Günther', 'Hana', 'Ines', 'José'];
  let bytes = HEADER.length + 1;
  for (let i = 0; bytes < TARGET_BYTES && i < maxRows; i++) {
    // Zipf-like skew: a few domains hold most addresses.
    const domain = `d${Math.floor(DOMAINS * rnd() ** 3)}.test`;
    const local = `${names[i % 10]!.toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '')}.${i}`;
    const r = rnd();
    const email =
      r < 0.01
        ? `${local}${domain}`
        : r < 0.02
          ? `${local}@@${domain}`
          : r < 0.03
            ? ''
            : `${local}@${domain}`;
    const name = i % 5 === 0 ? `"${names[i % 10]}, ${names[(i + 3) % 10]}"` : names[i % 10]!;
    const note = i % 50 === 0 ? '"first line\nsecond ""quoted"" line"' : `note ${i % 997}`;
    const record = `${i},${name},${email},"Company ${i % 1000}, Inc.",${note}`;
    onRecord(record, email);
    bytes += Buffer.byteLength(record) + 1;
  }
}

export function generateCsv(maxRows = Infinity): Buffer {
  const parts: string[] = [`${HEADER}\n`];
  generateRecords((record) => parts.push(`${record}\n`), maxRows);
  return Buffer.from(parts.join(''), 'utf8');
}

export function dnsZones(): Zones {
  const zones: Zones = { 'mx.bench.test': { a: ['127.0.0.1'] } };
  // Every tenth domain does not exist (NXDOMAIN); the rest receive mail.
  for (let n = 0; n < DOMAINS; n++)
    if (n % 10 !== 9) zones[`d${n}.test`] = { mx: [{ exchange: 'mx.bench.test', priority: 10 }] };
  return zones;
}
