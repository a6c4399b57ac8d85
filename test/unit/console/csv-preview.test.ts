// The bulk page's preview reads a CSV sample with the service's own detection and tokenizer: the
// delimiter, the header, the email column and the cells are what the service will use.
import { previewCsv } from '../../../console/src/csv-preview';
import { detectDialect } from '../../../functions/domain/bulk/csv/dialect';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('CSV preview', () => {
  it('finds the delimiter, the header and the email column, and reads quoted cells whole', () => {
    const csv = 'first;last;Work email;note\nAnn;A;ann@ok.test;"x;y"\nBob;B;bob@ok.test;"say ""hi"""\n';
    const preview = previewCsv(bytes(csv), true);
    expect(preview).toEqual({
      delimiter: ';',
      hasHeader: true,
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
});
