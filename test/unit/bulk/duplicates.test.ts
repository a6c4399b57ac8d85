import { readChunkRows } from '../../../functions/domain/bulk/csv/annotate';
import { classInVariant, dataClass } from '../../../functions/domain/bulk/csv/row-index';
import { formatIndexLine, parseIndexLine } from '../../../functions/domain/bulk/csv/row-index-text';
import type { Dialect } from '../../../functions/domain/bulk/csv/dialect';
import { scanCsv } from '../../../functions/domain/bulk/csv/scan';
import {
  comparisonKey,
  DuplicateFinder,
  hashCell,
  HashOrdinalSet,
  readPairs,
} from '../../../functions/domain/bulk/duplicates';

async function* pieces(input: Buffer, pieceBytes: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < input.length; at += pieceBytes) yield input.subarray(at, at + pieceBytes);
}

/** The scan's duplicate pairs of a file, as [duplicate ordinal, first ordinal]. */
async function scannedPairs(input: Buffer, emailColumn: number, pieceBytes: number, chunkSizeBytes = 256) {
  const scan = await scanCsv(pieces(input, pieceBytes), {
    emailColumn,
    chunkSizeBytes,
    findDuplicates: true,
    onChunks: () => undefined,
  });
  const { duplicates, firsts } = readPairs(scan.duplicates!.pairs());
  return {
    scan,
    pairs: Array.from(duplicates, (d, i) => [d, firsts[i]!]),
  };
}

/** The same pairs found the slow way: every data row as a validator reads it, keyed by comparisonKey. */
function referencePairs(input: Buffer, emailColumn: number, dialect: Dialect) {
  const rows = readChunkRows(input, { ...dialect, emailColumn, chunkStart: 0 }).filter(
    (r) => r.kind === 'data',
  );
  const seen = new Map<string, number>();
  const pairs: number[][] = [];
  rows.forEach((row, ordinal) => {
    const key = row.email === undefined ? '' : comparisonKey(row.email);
    if (key === '') return;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, ordinal);
    else pairs.push([ordinal, first]);
  });
  return pairs;
}

describe('the comparison key of an address', () => {
  it('ignores case, surrounding quotes and spaces, a display name, mailto: and an IDN spelling', () => {
    const key = comparisonKey('jane@bücher.de');
    for (const cell of [
      'Jane@Bücher.DE',
      '  jane@BÜCHER.de ',
      '"jane@bücher.de"',
      'Jane Doe <jane@bücher.de>',
      'mailto:jane@bücher.de',
      'jane@xn--bcher-kva.de',
      'jane@bücher.de.',
    ])
      expect(comparisonKey(cell)).toBe(key);
    expect(comparisonKey('jane@bucher.de')).not.toBe(key);
    expect(comparisonKey('   ')).toBe('');
  });

  it('hashes a plain cell straight from its bytes exactly as the slow path hashes the same key', () => {
    const fast: [number, number] = [0, 0];
    const slow: [number, number] = [0, 0];
    expect(hashCell(Buffer.from('Ann.Lee@Example.COM'), 'utf-8', fast)).toBe(true);
    expect(hashCell(Buffer.from('"Ann Lee" <ann.lee@example.com>'), 'utf-8', slow)).toBe(true);
    expect(slow).toEqual(fast);
    expect(hashCell(Buffer.from('ann.lee@example.com', 'utf16le'), 'utf-16le', slow)).toBe(true);
    expect(slow).toEqual(fast);
    expect(hashCell(Buffer.from('ann.lee@example.co'), 'utf-8', slow)).toBe(true);
    expect(slow).not.toEqual(fast);
    expect(hashCell(Buffer.from(' \t '), 'utf-8', slow)).toBe(false);
  });
});

describe('the hash set', () => {
  it('keeps the first ordinal of each of 300,000 hashes through its growth, with no false match', () => {
    const set = new HashOrdinalSet(16);
    const hash: [number, number] = [0, 0];
    const finder = new DuplicateFinder('utf-8');
    let matched = 0;
    for (let i = 0; i < 300_000; i++) {
      const cell = Buffer.from(`user${i}@example.com`);
      hashCell(cell, 'utf-8', hash);
      if (set.firstOrAdd(hash[0], hash[1], i) !== -1) matched++;
      finder.row(i, cell, 0, cell.length);
    }
    expect(matched).toBe(0);
    expect(set.size).toBe(300_000);
    expect(finder.count).toBe(0);
    hashCell(Buffer.from('USER123456@example.com'), 'utf-8', hash);
    expect(set.firstOrAdd(hash[0], hash[1], 300_000)).toBe(123_456);
  });
});

describe('duplicates found by the scan', () => {
  const rows = [
    'Ann,ann@x.io',
    'Bob,bob@y.io',
    'Ann again,ANN@X.IO',
    '"Lee, Sam","Sam Lee <sam@z.io>"',
    'blank,',
    'blank again,',
    'Sam,sam@Z.io',
    '"Quoted ""name""",bob@y.io.',
    'test,safe+1@mailvet.test',
    'test,SAFE+1@mailvet.test',
    'Ida,ida@bücher.de',
    'Ida,IDA@xn--bcher-kva.de',
    '',
    'Ann,ann@x.io',
  ];
  const text = `name,email\n${rows.join('\n')}\n`;

  it.each([1, 3, 7, 64, 65536])(
    'match a validator reading every row, across chunks and stream pieces of %i bytes',
    async (pieceBytes) => {
      const input = Buffer.from(text.repeat(1), 'utf8');
      const { scan, pairs } = await scannedPairs(input, 1, pieceBytes, 40);
      expect(scan.chunks).toBeGreaterThan(3);
      expect(pairs).toEqual(referencePairs(input, 1, scan.dialect));
      expect(pairs).toEqual([
        [2, 0],
        [6, 3],
        [7, 1],
        [9, 8],
        [11, 10],
        [12, 0],
      ]);
      expect(scan.duplicates!.testAddresses).toBe(1);
    },
  );

  it('count data rows from the header, and find them in a UTF-16 file', async () => {
    const input = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { scan, pairs } = await scannedPairs(input, 1, 5, 64);
    expect(scan.dialect.encoding).toBe('utf-16le');
    expect(pairs).toEqual(referencePairs(input, 1, scan.dialect));
    expect(pairs).toHaveLength(6);
  });

  it('are none in a file of distinct addresses', async () => {
    const input = Buffer.from(Array.from({ length: 500 }, (_, i) => `u${i}@x.io`).join('\n'));
    const { pairs } = await scannedPairs(input, 0, 100);
    expect(referencePairs(input, 0, (await scannedPairs(input, 0, 100)).scan.dialect)).toEqual([]);
    expect(pairs).toEqual([]);
  });
});

describe('the row index of a duplicate', () => {
  it('round-trips its mark in the text format older jobs have', () => {
    const line = '20 1 d safe accepted u';
    const row = parseIndexLine(line);
    expect(row).toEqual({
      kind: 'd',
      contentBytes: 20,
      eolBytes: 1,
      status: 'safe',
      reason: 'accepted',
      duplicate: true,
    });
    expect(formatIndexLine(row)).toBe(line);
    expect(() => parseIndexLine('20 1 d safe accepted x')).toThrow();
  });

  it('is left out of a unique copy only', () => {
    const variant = { reason: false, delimiter: ',', encoding: 'utf-8' as const };
    const duplicate = dataClass(1, 'safe', 'accepted', true);
    expect(classInVariant(duplicate, { ...variant, unique: true })).toBeUndefined();
    expect(classInVariant(duplicate, variant)).toBe(true);
    expect(classInVariant(dataClass(1, 'safe', 'accepted'), { ...variant, unique: true })).toBe(true);
  });
});
