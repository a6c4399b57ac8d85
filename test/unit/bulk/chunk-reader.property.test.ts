// Property: readChunk's one-pass reader (one byte a unit) finds the same rows, kinds, offsets and email
// cells as the shared RowTokenizer (readTokenized) on random CSV: quotes and `""`, CRLF, lone CR, blank
// and short rows, a BOM, non-ASCII text and invalid bytes, any delimiter, column and chunk offset.
import fc from 'fast-check';
import {
  readChunk,
  readTokenized,
  type ChunkLayout,
  type ChunkRows,
} from '../../../functions/domain/bulk/csv/annotate';

const piece = fc.constantFrom(
  ',',
  ';',
  '\t',
  '|',
  '"',
  '""',
  '\n',
  '\r',
  '\r\n',
  ' ',
  '  ',
  'a',
  'Z',
  'é',
  '漢',
  '😀',
  '\ufeff',
  '\u00a0',
  '\u007f',
  'x@y.io',
  'ann.1@d7.test',
  ' a@b.co ',
  '"q@r.de"',
  '"q""x"@r.de',
  'mailto:m@n.org',
  'Name <n@m.io>',
);

const text = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(''));

/** Rows as plain values, for comparing. */
function plain(rows: ChunkRows) {
  return {
    count: rows.count,
    kinds: [...rows.kinds.subarray(0, rows.count)],
    starts: [...rows.starts.subarray(0, rows.count)],
    contentEnds: [...rows.contentEnds.subarray(0, rows.count)],
    ends: [...rows.ends.subarray(0, rows.count)],
    emails: rows.emails,
  };
}

const layoutOf = fc.record({
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  emailColumn: fc.integer({ min: 0, max: 3 }),
  chunkStart: fc.constantFrom(0, 0, 7, 1000),
  header: fc.integer({ min: -1, max: 12 }),
  data: fc.integer({ min: 0, max: 12 }),
});

function layout(
  l: { delimiter: string; emailColumn: number; chunkStart: number; header: number; data: number },
  encoding: string,
): ChunkLayout {
  return {
    delimiter: l.delimiter as ChunkLayout['delimiter'],
    encoding,
    emailColumn: l.emailColumn,
    chunkStart: l.chunkStart,
    headerStart: l.header < 0 ? -1 : l.chunkStart + l.header,
    dataStart: l.chunkStart + l.data,
  };
}

describe('readChunk (property)', () => {
  it('agrees with the tokenizer on random UTF-8 CSV, with or without a BOM', () => {
    fc.assert(
      fc.property(text, layoutOf, fc.boolean(), (csv, l, bom) => {
        const bytes = Buffer.from((bom ? '\ufeff' : '') + csv, 'utf8');
        const at = layout(l, 'utf-8');
        expect(plain(readChunk(bytes, at))).toEqual(plain(readTokenized(bytes, at)));
      }),
      { numRuns: 600 },
    );
  });

  it('agrees with the tokenizer on random bytes (invalid UTF-8, Windows-1252)', () => {
    const bytes = fc.uint8Array({ maxLength: 80 }).map((array) =>
      // biased towards the bytes the rules look at
      Buffer.from(array.map((b) => [0x22, 0x2c, 0x0a, 0x0d, 0x20, 0x40, b, b][b % 8]!)),
    );
    fc.assert(
      fc.property(bytes, layoutOf, fc.constantFrom('utf-8', 'windows-1252'), (input, l, encoding) => {
        const at = layout(l, encoding);
        expect(plain(readChunk(input, at))).toEqual(plain(readTokenized(input, at)));
      }),
      { numRuns: 600 },
    );
  });

  it('reads UTF-16 (two bytes a unit) as the tokenizer does', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('utf-16le', 'utf-16be'), (csv, encoding) => {
        let bytes = Buffer.from('\ufeff' + csv, 'utf16le');
        if (encoding === 'utf-16be') bytes = Buffer.from(bytes).swap16();
        const at: ChunkLayout = {
          delimiter: ',',
          encoding,
          emailColumn: 1,
          chunkStart: 0,
          headerStart: -1,
          dataStart: 0,
        };
        const rows = readChunk(bytes, at);
        expect(plain(rows)).toEqual(plain(readTokenized(bytes, at)));
        // the same text in UTF-8 (a BOM too) holds the same cells
        expect(rows.emails).toEqual(
          readChunk(Buffer.from('\ufeff' + csv, 'utf8'), { ...at, encoding: 'utf-8' }).emails,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('reads the usual rows: quoted fields, a newline inside quotes, blank and short rows', () => {
    const csv =
      'id,name,email\r\n1,"Ann, B",ann@x.io\n\n2,Bob\r3,"multi\nline", " bob@y.io "\n,,\n4,x,"q""r@z.de"';
    const rows = readChunk(Buffer.from(csv), {
      delimiter: ',',
      encoding: 'utf-8',
      emailColumn: 2,
      chunkStart: 0,
      headerStart: 0,
      dataStart: 15,
    });
    expect(rows.emails).toEqual(['ann@x.io', undefined, 'bob@y.io', 'q"r@z.de']);
    expect([...rows.kinds.subarray(0, rows.count)].map((_, row) => rows.kindOf(row))).toEqual([
      'header',
      'data',
      'pass',
      'data',
      'data',
      'pass',
      'data',
    ]);
  });
});
