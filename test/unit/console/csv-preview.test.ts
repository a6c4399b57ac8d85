// The bulk page's preview reads a CSV sample with the service's own detection and tokenizer: the
// delimiter, the header, the email column and the cells are what the service will use.
import { previewCsv } from '../../../console/src/csv-preview';
import { detectDialect } from '../../../functions/domain/bulk/csv/dialect';
import iconv from 'iconv-lite';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('CSV preview', () => {
  it('finds the delimiter, the header and the email column, and reads quoted cells whole', () => {
    const csv = 'first;last;Work email;note\nAnn;A;ann@ok.test;"x;y"\nBob;B;bob@ok.test;"say ""hi"""\n';
    const preview = previewCsv(bytes(csv), true);
    expect(preview).toEqual({
      encoding: 'utf-8',
      delimiter: ';',
      hasHeader: true,
      headerPending: false,
      emailColumn: 2,
      columns: ['first', 'last', 'Work email', 'note'],
      rows: [
        ['Ann', 'A', 'ann@ok.test', 'x;y'],
        ['Bob', 'B', 'bob@ok.test', 'say "hi"'],
      ],
    });
  });

  it('agrees with the service detection for the column the person picks', () => {
    const csv = 'name|email|company\nAnn|ann@ok.test|Acme\nBob|bob@ok.test|Beta\n';
    for (const column of [0, 1, 2]) {
      const preview = previewCsv(bytes(csv), true, column);
      const service = detectDialect(Buffer.from(csv), column, true);
      expect(preview).toMatchObject({
        delimiter: service.delimiter,
        hasHeader: service.hasHeader,
        emailColumn: column,
      });
    }
  });

  it('names columns "Column N" when there is no header, and keeps every data row', () => {
    const preview = previewCsv(bytes('ann@ok.test\tAnn\nbob@ok.test\tBob\n'), true);
    expect(preview.delimiter).toBe('\t');
    expect(preview.hasHeader).toBe(false);
    expect(preview.columns).toEqual(['Column 1', 'Column 2']);
    expect(preview.rows).toEqual([
      ['ann@ok.test', 'Ann'],
      ['bob@ok.test', 'Bob'],
    ]);
  });

  it('drops a row cut off at the end of a partial sample, and skips a UTF-8 BOM', () => {
    const sample = '\ufeffemail,name\nann@ok.test,Ann\nbob@ok.te';
    const preview = previewCsv(bytes(sample), false);
    expect(preview.columns).toEqual(['email', 'name']);
    expect(preview.rows).toEqual([['ann@ok.test', 'Ann']]);
  });

  it('shows at most maxRows rows', () => {
    const csv = 'email\n' + Array.from({ length: 20 }, (_, i) => `p${i}@ok.test`).join('\n') + '\n';
    expect(previewCsv(bytes(csv), true, undefined, 3).rows).toEqual([
      ['p0@ok.test'],
      ['p1@ok.test'],
      ['p2@ok.test'],
    ]);
  });

  it("reads UTF-16 files through the service's unit view and decodes their cells", () => {
    const csv = 'Prénom;E-mail\nZoë;zoe@ok.test\nJosé;jose@ok.test\n';
    for (const [encoding, bytesOf] of [
      ['utf-16le', (t: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')])],
      [
        'utf-16be',
        (t: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]),
      ],
    ] as const) {
      const preview = previewCsv(new Uint8Array(bytesOf(csv)), true);
      expect(preview).toEqual({
        encoding,
        delimiter: ';',
        hasHeader: true,
        headerPending: false,
        emailColumn: 1,
        columns: ['Prénom', 'E-mail'],
        rows: [
          ['Zoë', 'zoe@ok.test'],
          ['José', 'jose@ok.test'],
        ],
      });
    }
  });

  it('decodes a Windows-1252 file as Windows-1252, not as broken UTF-8', () => {
    const csv = iconv.encode(
      'nom,courriel\nFrançois,francois@ok.test\nAnaïs,anais@ok.test\n',
      'windows-1252',
    );
    const preview = previewCsv(new Uint8Array(csv), true);
    expect(preview.encoding).toBe('windows-1252');
    expect(preview.columns).toEqual(['nom', 'courriel']);
    expect(preview.rows).toEqual([
      ['François', 'francois@ok.test'],
      ['Anaïs', 'anais@ok.test'],
    ]);
  });

  it('leaves out an Excel sep= line and a preamble above the header, as the service does', () => {
    const csv = 'sep=|\nExported 2026-11-01\nname|email\nAnn|ann@ok.test\n';
    const preview = previewCsv(bytes(csv), true);
    expect(preview.delimiter).toBe('|');
    expect(preview.hasHeader).toBe(true);
    expect(preview.columns).toEqual(['name', 'email']);
    expect(preview.rows).toEqual([['Ann', 'ann@ok.test']]);
  });

  it('says the header is decided at the scan when the sample of a longer file holds no address', () => {
    const rows = Array.from({ length: 60 }, (_, i) => `Person ${i},unknown`).join('\n');
    const preview = previewCsv(bytes(`name,contact\n${rows}\n`), false);
    const service = detectDialect(Buffer.from(`name,contact\n${rows}\n`), 0, false);
    expect(service.pendingHeader).toBeDefined();
    expect(preview).toMatchObject({ hasHeader: false, headerPending: true });
    expect(previewCsv(bytes(`name,contact\n${rows}\n`), true).headerPending).toBe(false);
  });
});
