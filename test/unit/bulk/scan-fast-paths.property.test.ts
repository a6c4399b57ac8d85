// Properties of the upload scan's fast paths: on random CSVs (quotes, CRLF, lone CR, blank rows, a BOM,
// UTF-16) the tokenizer, fed in random pieces, reports the rows a plain byte-at-a-time reading of the
// rules gives; the duplicate finder (hashes from raw bytes, batched look-ups) finds the duplicates that
// comparisonKey strings give; and a plain cell hashed from its bytes hashes as its key does.
import fc from 'fast-check';
import { unitView } from '../../../functions/domain/bulk/csv/encoding';
import {
  cellText,
  RowTokenizer,
  ScanTokenizer,
  type RowBounds,
  type ScanRow,
} from '../../../functions/domain/bulk/csv/row-tokenizer';
import { comparisonKey, DuplicateFinder, hashCell } from '../../../functions/domain/bulk/duplicates';
import { isTestAddress } from '../../../functions/domain/validation/test-addresses';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** The tokenizer's rules, one byte at a time and nothing else (the reference). */
function referenceRows(bytes: Buffer, delimiter: number, column: number, bom: number): RowBounds[] {
  const rows: RowBounds[] = [];
  let state: 'start' | 'plain' | 'quoted' | 'quoteInQuoted' | 'afterCr' = 'start';
  let rowStart = 0;
  let fieldStart = bom;
  let field = 0;
  let emailStart = -1;
  let emailEnd = -1;
  let content = false;
  let crAt = -1;
  const endField = (at: number) => {
    if (field === column) [emailStart, emailEnd] = [fieldStart, at];
    field++;
  };
  const endRow = (contentEnd: number, end: number) => {
    rows.push({ start: rowStart, contentEnd, end, fields: field, emailStart, emailEnd, blank: !content });
    [rowStart, fieldStart, field, emailStart, emailEnd, content] = [end, end, 0, -1, -1, false];
  };
  for (let i = bom; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (state === 'afterCr') {
      state = 'start';
      if (b === LF) {
        endRow(crAt, i + 1);
        continue;
      }
      endRow(crAt, i);
    }
    if (state === 'quoted') {
      if (b === QUOTE) state = 'quoteInQuoted';
      else if (b !== 0x20 && b !== 0x09 && b !== LF && b !== CR) content = true;
      continue;
    }
    if (state === 'quoteInQuoted' && b === QUOTE) {
      content = true;
      state = 'quoted';
      continue;
    }
    if (b === delimiter || b === LF || b === CR) {
      endField(i);
      if (b === delimiter) fieldStart = i + 1;
      else if (b === LF) endRow(i, i + 1);
      else crAt = i;
      state = b === CR ? 'afterCr' : 'start';
      continue;
    }
    if (state === 'start' && b === QUOTE && i === fieldStart) state = 'quoted';
    else if (state === 'start' && (b === 0x20 || b === 0x09)) continue;
    else if (state !== 'plain') {
      content = true;
      state = 'plain';
    }
  }
  if (state === 'afterCr') endRow(crAt, bytes.length);
  else if (bytes.length > rowStart) {
    endField(bytes.length);
    endRow(bytes.length, bytes.length);
  }
  return rows;
}

function withoutFields(row: ScanRow): ScanRow {
  const { start, contentEnd, end, emailStart, emailEnd, blank } = row;
  return { start, contentEnd, end, emailStart, emailEnd, blank };
}

/** Random CSV text: quoted cells holding delimiters, quotes and line breaks, every line ending, blanks. */
const cell = fc.oneof(
  fc.constantFrom('', ' ', '\t', 'a@b.io', 'Ann.Lee@Example.COM', ' x@y.z ', 'x@y.z', 'X@Y.Z', 'no address'),
  fc.constantFrom(
    'safe+1@mailvet.test',
    'SAFE+1@MAILVET.TEST',
    '"Ann" <a@b.io>',
    'mailto:a@b.io',
    'jé@bü.de',
  ),
  fc.constantFrom('"q,uoted"', '"a ""b"" c"', '"line\nbreak"', '"cr\rin"', '""', '"', 'a"b', ' "x"', '"x"y'),
  fc.string({
    unit: fc.constantFrom('a', 'b', '@', '.', ',', ';', '"', ' ', '\n', '\r', 'é'),
    maxLength: 12,
  }),
  // quoted cells longer than the tokenizer's 64-byte loop before its indexOf
  fc
    .string({ unit: fc.constantFrom('x', ' ', ',', '\n', '""'), minLength: 40, maxLength: 160 })
    .map((inside) => `"${inside}"`),
);
const row = fc.array(cell, { minLength: 0, maxLength: 5 }).map((cells) => cells.join(','));
const ending = fc.constantFrom('\n', '\r\n', '\r');
const csv = fc
  .array(fc.tuple(row, ending), { minLength: 0, maxLength: 30 })
  .chain((rows) =>
    fc.tuple(
      fc.constant(rows.map(([r, e]) => r + e).join('')),
      fc.boolean(), // drop the last line ending
      fc.constantFrom('utf-8', 'utf-8 BOM', 'utf-16le BOM'),
    ),
  )
  .map(([text, cut, form]) => {
    const body = cut ? text.replace(/(\r\n|\n|\r)$/, '') : text;
    if (form === 'utf-8') return Buffer.from(body, 'utf8');
    if (form === 'utf-8 BOM') return Buffer.from(`\ufeff${body}`, 'utf8');
    return Buffer.from(`\ufeff${body}`, 'utf16le');
  });

/** Sizes of the pieces a file arrives in: small ones, and one larger than any file here. */
const pieceSizes = fc.array(fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constant(1 << 20)), {
  minLength: 1,
  maxLength: 4,
});

/** The tokenizer's view of a generated file (bytes, or UTF-16 units), and its BOM's length in units. */
function unitsOf(bytes: Buffer): { units: Buffer; bom: number } {
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe;
  const units = unitView(bytes, utf16 ? 'utf-16le' : 'utf-8');
  return { units, bom: utf16 ? 1 : bytes[0] === 0xef ? 3 : 0 };
}

/**
 * Feeds `units` to the tokenizer in pieces of the given sizes, in turn, and finishes it. The first
 * piece holds the BOM whole, as the scan's first piece (the dialect sample) does.
 */
function pushInPieces(
  tokenizer: { push(units: Buffer): void; finish(): void },
  units: Buffer,
  sizes: number[],
  bom: number,
): void {
  for (let at = 0, k = 0; at < units.length; k++) {
    const size = sizes[k % sizes.length]! + (k === 0 ? bom : 0);
    tokenizer.push(units.subarray(at, at + size));
    at += size;
  }
  tokenizer.finish();
}

describe('the scan fast paths (property)', () => {
  it('tokenize rows as the byte-at-a-time rules do, whatever the pieces', () => {
    fc.assert(
      fc.property(csv, pieceSizes, fc.integer({ min: 0, max: 3 }), (bytes, sizes, column) => {
        const { units, bom } = unitsOf(bytes);
        const rows: RowBounds[] = [];
        const tokenizer = new RowTokenizer(0x2c, column, (r) => rows.push({ ...r }), 0, bom);
        pushInPieces(tokenizer, units, sizes, bom);
        expect(rows).toEqual(referenceRows(units, 0x2c, column, bom));
      }),
      { numRuns: 500 },
    );
  });

  it("read the scan's rows (all but the field count) as the byte-at-a-time rules do, whatever the pieces", () => {
    fc.assert(
      fc.property(
        csv,
        pieceSizes,
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(0x2c, 0x3b),
        (bytes, sizes, column, delimiter) => {
          const { units, bom } = unitsOf(bytes);
          const rows: ScanRow[] = [];
          const tokenizer = new ScanTokenizer(delimiter, column, (r) => rows.push(withoutFields(r)), bom);
          pushInPieces(tokenizer, units, sizes, bom);
          expect(rows).toEqual(referenceRows(units, delimiter, column, bom).map(withoutFields));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('find a quote at any offset of a long quoted cell, around the 64-byte loop and its indexOf', () => {
    for (let k = 0; k < 140; k++) {
      const units = Buffer.from(
        `a,"${'x'.repeat(k)}""${'y'.repeat(140 - k)}",b@c.io\nnext,"${'z'.repeat(k)}"\n`,
      );
      const rows: RowBounds[] = [];
      const tokenizer = new RowTokenizer(0x2c, 2, (r) => rows.push({ ...r }));
      tokenizer.push(units);
      tokenizer.finish();
      expect(rows).toEqual(referenceRows(units, 0x2c, 2, 0));
      expect(rows).toHaveLength(2);
    }
  });

  it('find the duplicates that comparison keys of the raw cells give, test addresses counted', () => {
    // more rows than one look-up batch, from a small pool so that many repeat
    const pool = fc.oneof(
      fc.constantFrom('a@b.io', 'A@B.IO', ' a@b.io\t', '"a@b.io"', 'Ann <a@b.io>', 'mailto:a@b.io', 'x@y.z'),
      fc.constantFrom('safe+1@mailvet.test', 'SAFE+1@MAILVET.test', 'x@mailvet.test', '', '  ', 'a@@b.io'),
      fc.constantFrom('jé@bü.de', 'jé@xn--b-hoa.de', 'no address', '"q ""x"" q"', 'a@b.io.', 'a@b'),
      fc.integer({ min: 0, max: 400 }).map((n) => `user${n}@d${n % 7}.test`),
    );
    fc.assert(
      fc.property(
        fc.array(pool, { minLength: 0, maxLength: 1200 }),
        fc.constantFrom('utf-8', 'utf-16le'),
        (cells, encoding) => {
          const finder = new DuplicateFinder(encoding);
          const seen = new Map<string, number>();
          const expected: number[] = [];
          let testAddresses = 0;
          cells.forEach((text, ordinal) => {
            // each cell inside a longer buffer, as the scan hands them over
            const raw = Buffer.concat([
              Buffer.from('x,', encoding as BufferEncoding),
              Buffer.from(text, encoding as BufferEncoding),
              Buffer.from(',y', encoding as BufferEncoding),
            ]);
            const width = encoding === 'utf-8' ? 1 : 2;
            finder.row(ordinal, raw, 2 * width, raw.length - 2 * width);
            const key = comparisonKey(text);
            if (key === '') return;
            const first = seen.get(key);
            if (first === undefined) seen.set(key, ordinal);
            else {
              expected.push(ordinal, first);
              if (isTestAddress(cellText(text))) testAddresses++;
            }
          });
          const pairs = finder.pairs();
          expect(Array.from({ length: pairs.length / 4 }, (_, i) => pairs.readUInt32LE(i * 4))).toEqual(
            expected,
          );
          expect(finder.count).toBe(expected.length / 2);
          expect(finder.testAddresses).toBe(testAddresses);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('hash any cell four bytes at a time as the slow path hashes its key, controls and non-ASCII included', () => {
    const unit = fc.constantFrom(
      ...'abzAMZ09._-+@<>":[]',
      ' ',
      '\t',
      '\x01',
      '\x1f',
      '\x7f',
      'é',
      'Ü',
      'mailto:',
      '@mailvet.test',
    );
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 40 }), (text) => {
        const fast = new Uint32Array(2);
        const slow: [number, number] = [0, 0];
        const viaBytes = hashCell(Buffer.from(text, 'utf8'), 'utf-8', fast);
        const viaKey = hashCell(Buffer.from(text, 'utf16le'), 'utf-16le', slow);
        expect(viaBytes).toBe(viaKey);
        if (viaKey) expect([fast[0], fast[1]]).toEqual(slow);
      }),
      { numRuns: 3000 },
    );
  });

  it('hash a plain cell from its bytes as the slow path hashes its key', () => {
    const local = fc.string({
      unit: fc.constantFrom(...'abcXYZ019._-+', '@', ',', ';', '"', '['),
      minLength: 1,
      maxLength: 30,
    });
    const domain = fc.string({ unit: fc.constantFrom(...'abcQRS.-09'), minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(fc.tuple(local, fc.constantFrom('@', '', '@@'), domain), ([l, at, d]) => {
        const text = `${l}${at}${d}`;
        const fast: [number, number] = [0, 0];
        const slow: [number, number] = [0, 0];
        const viaBytes = hashCell(Buffer.from(text, 'latin1'), 'utf-8', fast);
        // UTF-16 cells always take the slow path (comparisonKey)
        const viaKey = hashCell(Buffer.from(text, 'utf16le'), 'utf-16le', slow);
        expect(viaBytes).toBe(viaKey);
        if (viaKey) expect(fast).toEqual(slow);
      }),
      { numRuns: 2000 },
    );
  });
});
