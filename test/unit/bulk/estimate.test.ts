// Estimate jobs' pure parts: the seeded reservoir, the projection's rounding, and the sample the scan
// draws (the same cells the chunk validator reads; never the header; the whole file when it is small).
import { readChunkRows } from '../../../functions/domain/bulk/csv/annotate';
import { scanCsv, type ScanResult } from '../../../functions/domain/bulk/csv/scan';
import { projectStatistics } from '../../../functions/domain/bulk/estimate/projection';
import { Reservoir, seedOf } from '../../../functions/domain/bulk/estimate/reservoir';
import { seededRandom } from '../../../functions/domain/seeded-random';
import { emptyStatistics } from '../../../functions/domain/bulk/statuses';

async function* pieces(input: Buffer, pieceBytes: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < input.length; at += pieceBytes) yield input.subarray(at, at + pieceBytes);
}

function sampleOf(input: Buffer, size: number, seed = 1, pieceBytes = 7): Promise<ScanResult> {
  return scanCsv(pieces(input, pieceBytes), {
    emailColumn: 1,
    chunkSizeBytes: 1 << 20,
    onChunks: () => undefined,
    sample: { size, random: seededRandom(seed) },
  });
}

/** Every data row's email cell as the chunk validator reads it. */
function validatorCells(input: Buffer, scan: ScanResult): (string | undefined)[] {
  return readChunkRows(input, { ...scan.dialect, emailColumn: 1, chunkStart: 0 })
    .filter((row) => row.kind === 'data')
    .map((row) => row.email);
}

describe('Reservoir', () => {
  test('keeps every item of a stream shorter than its size, in order', () => {
    const reservoir = new Reservoir<number>(10, seededRandom(3));
    for (let i = 0; i < 4; i++) reservoir.put(reservoir.offer(), i);
    expect(reservoir.items()).toEqual([0, 1, 2, 3]);
  });

  test('the same seed keeps the same items', () => {
    const draw = (seed: number) => {
      const reservoir = new Reservoir<number>(5, seededRandom(seed));
      for (let i = 0; i < 1000; i++) {
        const slot = reservoir.offer();
        if (slot >= 0) reservoir.put(slot, i);
      }
      return reservoir.items();
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(seedOf('job-a')).toBe(seedOf('job-a'));
    expect(seedOf('job-a')).not.toBe(seedOf('job-b'));
  });

  test('keeps each item with the same probability (uniform sample)', () => {
    const items = 50;
    const size = 10;
    const trials = 20_000;
    const kept = new Array<number>(items).fill(0);
    const random = seededRandom(7);
    for (let t = 0; t < trials; t++) {
      const reservoir = new Reservoir<number>(size, random);
      for (let i = 0; i < items; i++) {
        const slot = reservoir.offer();
        if (slot >= 0) reservoir.put(slot, i);
      }
      for (const item of reservoir.items()) kept[item]! += 1;
    }
    // each item is kept size/items = 20% of the time: 4,000 of 20,000, binomial sd ~57
    for (const count of kept) expect(Math.abs(count - (trials * size) / items)).toBeLessThan(300);
  });

  test('a long stream: every stretch of it equally kept, with few random draws', () => {
    const items = 5000;
    const size = 20;
    const trials = 4000;
    const stretches = new Array<number>(10).fill(0);
    let draws = 0;
    const seeded = seededRandom(11);
    const random = () => (draws++, seeded());
    for (let t = 0; t < trials; t++) {
      const reservoir = new Reservoir<number>(size, random);
      for (let i = 0; i < items; i++) {
        const slot = reservoir.offer();
        if (slot >= 0) reservoir.put(slot, i);
      }
      const kept = reservoir.items();
      expect(new Set(kept).size).toBe(size);
      for (const item of kept) stretches[Math.floor(item / (items / 10))]! += 1;
    }
    // each tenth of the stream holds a tenth of the kept items: 8,000 of 80,000, sd ~85
    for (const count of stretches) expect(Math.abs(count - (trials * size) / 10)).toBeLessThan(400);
    // Algorithm L: about size * (1 + ln(items / size)) * 3 draws per sample, far fewer than one per item
    expect(draws / trials).toBeLessThan(size * (1 + Math.log(items / size)) * 3 + 5);
    expect(draws / trials).toBeLessThan(items / 10);
  });
});

describe('projectStatistics', () => {
  test('whole numbers summing to the rows, the remainder to the largest fractions', () => {
    const sample = { ...emptyStatistics(), safe: 1, some_risk: 1, dead_email: 1 };
    // 10 / 3 = 3.33 each: one row left, to the first in status order
    expect(projectStatistics(sample, 10)).toEqual({
      safe: 4,
      block_bounce_risk: 0,
      some_risk: 3,
      dead_email: 3,
      do_not_mail_abuse: 0,
    });
    const skewed = { ...emptyStatistics(), safe: 2, block_bounce_risk: 5, do_not_mail_abuse: 3 };
    // 7 rows: 1.4, 3.5, 2.1 -> 1, 3, 2 and one left for block_bounce_risk (.5)
    expect(projectStatistics(skewed, 7)).toMatchObject({
      safe: 1,
      block_bounce_risk: 4,
      do_not_mail_abuse: 2,
    });
  });

  test('a sample of every row projects to its own counts; an empty one to zeros', () => {
    const sample = { ...emptyStatistics(), safe: 3, block_bounce_risk: 2 };
    expect(projectStatistics(sample, 5)).toEqual(sample);
    expect(projectStatistics(emptyStatistics(), 0)).toEqual(emptyStatistics());
  });

  test('sums to the rows for many shapes', () => {
    const random = seededRandom(9);
    for (let n = 0; n < 500; n++) {
      const sample = emptyStatistics();
      for (const status of Object.keys(sample) as (keyof typeof sample)[])
        sample[status] = Math.floor(random() * 400);
      const rows = 1 + Math.floor(random() * 1_000_000);
      const projected = projectStatistics(sample, rows);
      expect(Object.values(projected).reduce((a, b) => a + b, 0)).toBe(
        Object.values(sample).some((c) => c > 0) ? rows : 0,
      );
      for (const value of Object.values(projected)) expect(Number.isInteger(value)).toBe(true);
    }
  });
});

describe('the scan sample', () => {
  test('a small file: every data row, read as the validator reads it, the header left out', async () => {
    const input = Buffer.from(
      'name,email\nAnn,ann@ok.test\n\nBob,"bob@x.test"\nCy,\nDee\nEve,  eve@y.test \n',
    );
    const scan = await sampleOf(input, 1000);
    expect(scan.dataRows).toBe(5);
    expect(scan.sample).toEqual(['ann@ok.test', 'bob@x.test', '', undefined, 'eve@y.test']);
    expect(scan.sample).toEqual(validatorCells(input, scan));
  });

  test('a header candidate decided late is not sampled; a data row that looked like one is', async () => {
    // "Contact" is no email title: the first row is a header only because later rows hold addresses
    const withHeader = Buffer.from('id,Contact\n1,a@x.test\n2,b@x.test\n');
    expect((await sampleOf(withHeader, 10)).sample).toEqual(['a@x.test', 'b@x.test']);
    const noAddresses = Buffer.from('1,first\n2,second\n');
    const scan = await sampleOf(noAddresses, 10);
    expect(scan.dataRows).toBe(2);
    expect([...scan.sample!].sort()).toEqual(['first', 'second']);
  });

  test('a large file: the requested number of distinct data rows, the same for the same seed', async () => {
    const lines = ['id,email'];
    for (let i = 0; i < 5000; i++) lines.push(`${i},"user${i}@x.test"`);
    const input = Buffer.from(lines.join('\r\n'));
    const scan = await sampleOf(input, 100, 5, 4096);
    expect(scan.dataRows).toBe(5000);
    expect(scan.sample).toHaveLength(100);
    expect(new Set(scan.sample).size).toBe(100);
    for (const cell of scan.sample!) expect(cell).toMatch(/^user\d+@x\.test$/);
    expect((await sampleOf(input, 100, 5, 999)).sample).toEqual(scan.sample);
  });

  test('UTF-16 files: the cells decoded as the validator decodes them', async () => {
    const text = '\ufeffname,email\r\nZoë,zoë@x.test\r\nAl,al@y.test\r\n';
    const input = Buffer.from(text, 'utf16le');
    const scan = await sampleOf(input, 10, 1, 5);
    expect(scan.dialect.encoding).toBe('utf-16le');
    expect(scan.sample).toEqual(['zoë@x.test', 'al@y.test']);
  });
});
