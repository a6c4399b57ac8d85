// The binary row index against the text format's meaning: random rows (kinds, line endings, statuses,
// reasons of any text, duplicate marks) round-trip through segments cut anywhere in the stream; a
// variant made through a binary index, a text index (jobs completed before the binary format) or a
// mix of both gives the same bytes as the row-by-row reference; a chunk's index counts UTF-16 widths.
import fc from 'fast-check';
import { annotateChunk, readChunk } from '../../../functions/domain/bulk/csv/annotate';
import { encodeAscii, type TextEncoding } from '../../../functions/domain/bulk/csv/encoding';
import {
  IndexSegmentWriter,
  indexChunk,
  indexSegments,
  readIndex,
  reasonColumnHeader,
  type IndexSegment,
  type ResultsVariant,
  type RowClass,
} from '../../../functions/domain/bulk/csv/row-index';
import { formatIndexLine, type IndexedRow } from '../../../functions/domain/bulk/csv/row-index-text';
import { walkVariant } from '../../../functions/domain/bulk/results-variants';
import { bulkStatuses } from '../../../functions/domain/bulk/statuses';

/** A buffer as a stream of pieces of `size` bytes. */
async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function rowsOf(segments: IndexSegment[]): IndexedRow[] {
  return segments.flatMap(({ classes, codes, contentBytes }) =>
    Array.from(codes, (code, n): IndexedRow => {
      const { kind, eolBytes, status, reason, duplicate } = classes[code]!;
      const contentBytes_ = contentBytes[n]!;
      if (kind !== 'd') return { kind, contentBytes: contentBytes_, eolBytes };
      return {
        kind,
        contentBytes: contentBytes_,
        eolBytes,
        status,
        reason,
        ...(duplicate ? { duplicate: true } : {}),
      };
    }),
  );
}

function classOf(row: IndexedRow): RowClass {
  return row.kind === 'd'
    ? {
        kind: 'd',
        eolBytes: row.eolBytes,
        status: row.status,
        reason: row.reason,
        duplicate: !!row.duplicate,
      }
    : { kind: row.kind, eolBytes: row.eolBytes, status: '', reason: '', duplicate: false };
}

/** Rows written as binary segments, a new segment after each row whose number is in `cuts`. */
function binaryIndex(rows: IndexedRow[], cuts: ReadonlySet<number>): Buffer {
  const segments: Buffer[] = [];
  let writer = new IndexSegmentWriter();
  rows.forEach((row, n) => {
    writer.row(writer.code(classOf(row)), row.contentBytes);
    if (cuts.has(n)) {
      segments.push(writer.finish());
      writer = new IndexSegmentWriter();
    }
  });
  segments.push(writer.finish());
  return Buffer.concat(segments);
}

function textIndex(rows: IndexedRow[]): Buffer {
  return Buffer.from(rows.map((row) => `${formatIndexLine(row)}\n`).join(''), 'latin1');
}

/** The variant row by row, as the text format's reader made it: the reference. */
function referenceVariant(rows: IndexedRow[], results: Buffer, variant: ResultsVariant): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (const row of rows) {
    const bytes = results.subarray(at, at + row.contentBytes + row.eolBytes);
    at += row.contentBytes + row.eolBytes;
    if (row.kind === 'd' && variant.statuses && !variant.statuses.has(row.status)) continue;
    if (row.kind === 'd' && variant.unique && row.duplicate) continue;
    if (row.kind === 'e' || !variant.reason) {
      out.push(bytes);
      continue;
    }
    const label = row.kind === 'h' ? reasonColumnHeader : row.reason;
    out.push(
      bytes.subarray(0, row.contentBytes),
      encodeAscii(variant.delimiter + label, variant.encoding),
      bytes.subarray(row.contentBytes),
    );
  }
  return Buffer.concat(out);
}

async function walk(results: Buffer, index: Buffer, variant: ResultsVariant, pieceSize: number) {
  const out: Buffer[] = [];
  const covered = await walkVariant(pieces(results, pieceSize), pieces(index, pieceSize), variant, (b) => {
    out.push(b);
  });
  return { bytes: Buffer.concat(out), covered };
}

// Any text the engine or a later version could give, spaces, non-Latin and empty included.
const anyText = fc.oneof(
  fc.constantFrom(...bulkStatuses, 'accepted', 'dns_timeout'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
// What the text format can hold: one word, no space.
const word = fc.stringMatching(/^[a-z_]{1,12}$/);

const rowOf = (text: fc.Arbitrary<string>, content: fc.Arbitrary<number>) =>
  fc.oneof(
    fc.record({
      kind: fc.constant('h' as const),
      contentBytes: content,
      eolBytes: fc.constantFrom(0, 1, 2, 4),
    }),
    fc.record({
      kind: fc.constant('e' as const),
      contentBytes: content,
      eolBytes: fc.constantFrom(0, 1, 2, 4),
    }),
    fc
      .record({
        kind: fc.constant('d' as const),
        contentBytes: content,
        eolBytes: fc.constantFrom(0, 1, 2, 4),
        status: text,
        reason: text,
        duplicate: fc.boolean(),
      })
      .map(({ duplicate, ...row }): IndexedRow => (duplicate ? { ...row, duplicate } : row)),
  );

describe('the binary row index', () => {
  it('gives back every row, whatever its text and byte counts, across segments and stream pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowOf(anyText, fc.oneof(fc.nat(300), fc.maxSafeNat())), { maxLength: 60 }),
        fc.uniqueArray(fc.nat(60), { maxLength: 4 }),
        fc.integer({ min: 1, max: 64 }),
        async (rows, cuts, pieceSize) => {
          const index = binaryIndex(rows, new Set(cuts));
          expect(rowsOf(readIndex(index))).toEqual(rows);
          const streamed: IndexSegment[] = [];
          for await (const segment of indexSegments(pieces(index, pieceSize))) streamed.push(segment);
          expect(rowsOf(streamed)).toEqual(rows);
        },
      ),
    );
  });

  it('gives a variant the bytes the text index gives, whatever the index is cut into', async () => {
    const variantOf = fc.record({
      statuses: fc.option(
        fc.uniqueArray(word, { maxLength: 3 }).map((s) => new Set(s)),
        { nil: undefined },
      ),
      unique: fc.boolean(),
      reason: fc.boolean(),
      delimiter: fc.constantFrom(',', ';', '\t'),
      encoding: fc.constantFrom<TextEncoding>('utf-8', 'utf-16le'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowOf(fc.constantFrom('safe', 'dead_email', 'x_unknown', 'some_risk'), fc.nat(40)), {
          maxLength: 60,
        }),
        fc.uniqueArray(fc.nat(60), { maxLength: 4 }),
        variantOf,
        fc.integer({ min: 1, max: 50 }),
        async (rows, cuts, variant, pieceSize) => {
          const total = rows.reduce((sum, row) => sum + row.contentBytes + row.eolBytes, 0);
          const results = Buffer.from(Array.from({ length: total }, (_, n) => 0x41 + (n % 26)));
          const expected = referenceVariant(rows, results, variant);
          const text = textIndex(rows);
          // a job whose chunks ran across the change: text parts and binary parts, joined
          const half = Math.floor(rows.length / 2);
          const mixed = Buffer.concat([
            textIndex(rows.slice(0, half)),
            binaryIndex(rows.slice(half), new Set()),
          ]);
          for (const index of [text, binaryIndex(rows, new Set(cuts)), mixed]) {
            const { bytes, covered } = await walk(results, index, variant, pieceSize);
            expect(covered).toBe(total);
            expect(bytes.equals(expected)).toBe(true);
          }
        },
      ),
    );
  });

  it('rejects bytes it did not write', () => {
    const index = binaryIndex(
      [{ kind: 'd', contentBytes: 5, eolBytes: 1, status: 'safe', reason: 'ok' }],
      new Set(),
    );
    expect(() => readIndex(index.subarray(0, index.length - 1))).toThrow('bad row index');
    expect(() => readIndex(Buffer.concat([index, Buffer.from([0x00, 0x52])]))).toThrow('bad row index');
    const otherVersion = Buffer.from(index);
    otherVersion[3] = 0x32;
    expect(() => readIndex(otherVersion)).toThrow('unknown segment format');
    const badClass = Buffer.from(index);
    badClass[badClass.length - 2] = 7;
    expect(() => readIndex(badClass)).toThrow('row class 7 of 1');
    expect(() => readIndex(Buffer.from('5 1 d safe\n'))).toThrow('bad row index line');
  });
});

describe("a chunk part's index", () => {
  const layout = { delimiter: ',' as const, emailColumn: 1, chunkStart: 0, headerStart: 0 };
  const verdictOf = (email: string | undefined) =>
    email?.endsWith('.io')
      ? { status: 'safe', reason: 'accepted' }
      : { status: 'dead_email', reason: 'no_mx' };

  it.each<TextEncoding>(['utf-8', 'utf-16le'])(
    "covers the annotated part and keeps each data row's verdict (%s)",
    async (encoding) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.tuple(
              fc.stringMatching(/^[a-zé漢 ]{0,8}$/),
              fc.constantFrom('a@x.io', 'b@y.com', ''),
              fc.constantFrom('\n', '\r\n'),
            ),
            { maxLength: 30 },
          ),
          async (lines) => {
            const header = 'name,email\n';
            const csv = header + lines.map(([name, email, eol]) => `${name},${email}${eol}`).join('');
            const chunk = Buffer.from(csv, encoding === 'utf-8' ? 'utf8' : 'utf16le');
            const chunkLayout = { ...layout, encoding, dataStart: encodeAscii(header, encoding).length };
            const rows = readChunk(chunk, chunkLayout);
            const verdicts = rows.emails.map(verdictOf);
            const part = annotateChunk(
              chunk,
              rows,
              chunkLayout,
              verdicts.map((v) => v.status),
            );
            const index = indexChunk(rows, verdicts, encoding);
            const indexed = rowsOf(readIndex(index));
            expect(
              indexed.filter((row) => row.kind === 'd').map((row) => row.kind === 'd' && row.status),
            ).toEqual(verdicts.map((v) => v.status));
            const variant = { reason: false, delimiter: ',', encoding };
            const { bytes, covered } = await walk(part, index, variant, 13);
            expect(covered).toBe(part.length);
            expect(bytes.equals(part)).toBe(true);
            // and the text format of the same rows gives the same reason-column copy
            const withReason = { ...variant, reason: true };
            const fromBinary = await walk(part, index, withReason, 13);
            const fromText = await walk(part, textIndex(indexed), withReason, 13);
            expect(fromBinary.bytes.equals(fromText.bytes)).toBe(true);
            expect(fromBinary.bytes.equals(referenceVariant(indexed, part, withReason))).toBe(true);
          },
        ),
        { numRuns: 50 },
      );
    },
  );

  it('is at least 5 times smaller than the text index of the same rows', () => {
    const csv =
      'id,email,name,company,city\n' +
      Array.from(
        { length: 2000 },
        (_, n) => `${n},user${n}@d${n % 50}.test,Name ${n},Company ${n % 97},City ${n % 13}\n`,
      ).join('');
    const chunk = Buffer.from(csv, 'utf8');
    const chunkLayout = { ...layout, encoding: 'utf-8' as const, dataStart: csv.indexOf('\n') + 1 };
    const rows = readChunk(chunk, chunkLayout);
    const verdicts = rows.emails.map((email, n) =>
      n % 3 === 0 ? { status: 'safe', reason: 'accepted' } : verdictOf(email),
    );
    const index = indexChunk(rows, verdicts, 'utf-8');
    const text = textIndex(rowsOf(readIndex(index)));
    expect(index.length * 5).toBeLessThanOrEqual(text.length);
  });
});
