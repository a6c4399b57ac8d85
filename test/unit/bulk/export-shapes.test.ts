// Issue 8 items 1-7 on the scanner and validator code without AWS: encodings, delimiter and header
// detection, pass-through lines and files that are not CSV.
import iconv from 'iconv-lite';
import { detectDialect } from '../../../functions/domain/bulk/csv/dialect';
import { detectEncoding } from '../../../functions/domain/bulk/csv/encoding';
import { NotCsvError } from '../../../functions/domain/bulk/csv/not-text';
import type { BulkStatus } from '../../../functions/domain/bulk/statuses';
import { runPipeline } from './in-memory-pipeline';

/** Runs the pipeline with a classifier that records every email cell and calls addresses safe. */
async function run(input: Buffer, emailColumn = 1, chunkSizeBytes = 1 << 20, pieceBytes?: number) {
  const cells: string[] = [];
  const result = await runPipeline(input, {
    emailColumn,
    chunkSizeBytes,
    pieceBytes,
    classify: (email): BulkStatus => {
      cells.push(email);
      return email.includes('@') ? 'safe' : 'block_bounce_risk';
    },
  });
  return { ...result, cells };
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('UTF-16 (item 1)', () => {
  const text = 'Name\tEmail\r\nZoë\tzoe@x.io\r\nBob\tbob@y.io\r\n';
  const expected = 'Name\tEmail\tmailvet_status\r\nZoë\tzoe@x.io\tsafe\r\nBob\tbob@y.io\tsafe\r\n';

  it.each([
    ['LE with BOM (Excel "Unicode Text")', 'utf-16le', true],
    ['BE with BOM', 'utf-16be', true],
    ['LE without BOM', 'utf-16le', false],
    ['BE without BOM', 'utf-16be', false],
  ])('parses %s as UTF-16 and appends in UTF-16', async (_name, encoding, bom) => {
    const input = iconv.encode(text, encoding, { addBOM: bom });
    for (const chunkSizeBytes of [1, 7, 1 << 20]) {
      const out = await run(input, 1, chunkSizeBytes, 5);
      expect(out.dialect).toMatchObject({ encoding, delimiter: '\t', hasHeader: true });
      expect(out.totalEmails).toBe(2);
      expect(out.output.equals(iconv.encode(expected, encoding, { addBOM: bom }))).toBe(true);
      expect(out.cells).toEqual(['zoe@x.io', 'bob@y.io']);
    }
  });
});

describe('legacy encodings (item 2)', () => {
  it('decodes Windows-1252 cells for validation and keeps the bytes', async () => {
    // a no-break space (0xA0) after the address, an accented domain, a Windows-1252 curly quote
    const text = 'nom;courriel\nJosé “Pepe”;jose@x.io\u00a0\nZoë;zoe@café.fr\n';
    const input = iconv.encode(text, 'windows-1252');
    const out = await run(input);
    expect(out.dialect.encoding).toBe('windows-1252');
    expect(out.cells).toEqual(['jose@x.io', 'zoe@café.fr']);
    const appended = iconv.encode(
      'nom;courriel;mailvet_status\nJosé “Pepe”;jose@x.io\u00a0;safe\nZoë;zoe@café.fr;safe\n',
      'windows-1252',
    );
    expect(out.output.equals(appended)).toBe(true);
  });

  it('recognises Shift_JIS', async () => {
    const text =
      '名前,メールアドレス\n山田太郎,yamada@example.jp\n佐藤花子,sato@example.jp\n鈴木一郎,suzuki@example.jp\n';
    const input = iconv.encode(text, 'shift_jis');
    const out = await run(input);
    expect(out.dialect).toMatchObject({ encoding: 'shift_jis', hasHeader: true });
    expect(iconv.decode(out.output, 'shift_jis')).toBe(
      '名前,メールアドレス,mailvet_status\n山田太郎,yamada@example.jp,safe\n佐藤花子,sato@example.jp,safe\n鈴木一郎,suzuki@example.jp,safe\n',
    );
  });

  it('falls back to Windows-1252 for Mac Roman and keeps its bytes', async () => {
    const input = iconv.encode('name,email\nCafé,cafe@x.io\n', 'macintosh');
    const out = await run(input);
    expect(out.dialect.encoding).toBe('windows-1252');
    const [header, row] = [input.subarray(0, 10), input.subarray(11, 25)]; // 'name,email', 'Café,cafe@x.io'
    const expected = Buffer.concat([header, utf8(',mailvet_status\n'), row, utf8(',safe\n')]);
    expect(out.output.equals(expected)).toBe(true);
  });

  it('takes valid UTF-8 as UTF-8 and reads a stray invalid cell as Windows-1252', async () => {
    expect(detectEncoding(utf8('a,b\nZoë,zoe@x.io\n'), true)).toBe('utf-8');
    // The first 64 KB (the sample) are ASCII; a Windows-1252 "é" comes later.
    const input = Buffer.concat([
      utf8('name,email\n' + 'Ann,ann@x.io\n'.repeat(6000) + 'Bad,bad@caf'),
      Buffer.from([0xe9]),
      utf8('.fr\n'),
    ]);
    const out = await run(input, 1, 1 << 20, 4096);
    expect(out.dialect.encoding).toBe('utf-8');
    expect(out.cells.at(-1)).toBe('bad@café.fr');
    const tail = Buffer.concat([Buffer.from([0xe9]), utf8('.fr,safe\n')]);
    expect(out.output.subarray(-tail.length).equals(tail)).toBe(true);
  });
});

describe('delimiter (item 3)', () => {
  it('never picks a delimiter that does not occur: sparse rows, no address early', async () => {
    const rows = ['id;name;email;phone'];
    for (let n = 0; n < 60; n++) rows.push(`${n};Name ${n};;`);
    rows.push('61;Ann;ann@x.io;555');
    const out = await run(utf8(rows.join('\n') + '\n'), 2);
    expect(out.dialect.delimiter).toBe(';');
    expect(out.totalEmails).toBe(61);
  });

  it('reads multi-line quoted cells and a preamble without inflating the count', async () => {
    const text =
      'Exported from CRM\nid,note,email\n1,"line one\nline two\nline three",ann@x.io\n2,"a; b | c\nd",bob@y.io\n';
    const out = await run(utf8(text), 2);
    expect(out.dialect.delimiter).toBe(',');
    expect(out.totalEmails).toBe(2);
    expect(out.cells).toEqual(['ann@x.io', 'bob@y.io']);
  });

  it('extends the sample to the end of a quoted cell longer than the sample', async () => {
    const long = 'x; y | z\n'.repeat(20_000); // 180 KB inside one quoted cell
    const text = `id,note,email\n1,"${long}",ann@x.io\n2,short,bob@y.io\n`;
    const out = await run(utf8(text), 2, 1 << 20, 4096);
    expect(out.dialect.delimiter).toBe(',');
    expect(out.totalEmails).toBe(2);
    expect(out.output.toString()).toBe(
      `id,note,email,mailvet_status\n1,"${long}",ann@x.io,safe\n2,short,bob@y.io,safe\n`,
    );
  });

  it('prefers the delimiter whose email column holds addresses', () => {
    const text = 'a|b,c\nann@x.io|1,2\nbob@y.io|3,4\n';
    expect(detectDialect(utf8(text), 0, true).delimiter).toBe('|');
  });
});

describe('header (item 4)', () => {
  it('recognises the header by its email-column title when the first rows have blank emails', async () => {
    const text = 'First Name,Last Name,E-mail Address\nAnn,Lee,\nBob,Ray,\nCy,Day,cy@x.io\n';
    const out = await run(utf8(text), 2);
    expect(out.dialect).toMatchObject({ hasHeader: true, headerStart: 0 });
    expect(out.totalEmails).toBe(3);
  });

  it.each([
    'email',
    'E-Mail',
    ' Email Address ',
    'Courriel',
    'Correo electrónico',
    'e-posta',
    'Work email',
    'MAIL',
  ])('reads %j as an email-column title', (title) => {
    expect(detectDialect(utf8(`name,${title}\nAnn,\n`), 1, true).hasHeader).toBe(true);
  });

  it('passes a LinkedIn-style preamble through before the header', async () => {
    const preamble =
      'Notes:\n"When exporting your connection data, you may notice that some of the email addresses are missing."\n\n';
    const text = `${preamble}First Name,Last Name,URL,Email Address\nAnn,Lee,https://x.io/ann,ann@x.io\nBob,Ray,https://x.io/bob,\n`;
    const out = await run(utf8(text), 3);
    const headerStart = Buffer.byteLength(preamble);
    expect(out.dialect).toMatchObject({ delimiter: ',', hasHeader: true, headerStart });
    expect(out.totalEmails).toBe(2);
    expect(out.output.toString()).toBe(
      `${preamble}First Name,Last Name,URL,Email Address,mailvet_status\nAnn,Lee,https://x.io/ann,ann@x.io,safe\nBob,Ray,https://x.io/bob,,block_bounce_risk\n`,
    );
  });

  it('looks past the sample for the first address to decide a header with no title', async () => {
    const rows = ['Vorname,Kontakt'];
    for (let n = 0; n < 9000; n++) rows.push(`Name ${n},`); // ~100 KB without an address
    rows.push('Ann,ann@x.io');
    const input = utf8(rows.join('\n') + '\n');
    for (const chunkSizeBytes of [1000, 1 << 20]) {
      const out = await run(input, 1, chunkSizeBytes, 8192);
      expect(out.dialect).toMatchObject({ hasHeader: true, headerStart: 0 });
      expect(out.totalEmails).toBe(9001);
      expect(out.output.toString().split('\n', 1)[0]).toBe('Vorname,Kontakt,mailvet_status');
    }
  });

  it('sees no header past the sample when no row holds an address', async () => {
    const rows: string[] = [];
    for (let n = 0; n < 9000; n++) rows.push(`Name ${n},none`);
    const out = await run(utf8(rows.join('\n') + '\n'), 1, 1 << 20, 8192);
    expect(out.dialect.hasHeader).toBe(false);
    expect(out.totalEmails).toBe(9000);
  });
});

describe("Excel's sep= line (item 5)", () => {
  it('takes the delimiter from it and passes it through', async () => {
    const text = 'sep=;\r\nname;email\r\nAnn, PhD;ann@x.io\r\n';
    const out = await run(utf8(text));
    expect(out.dialect).toMatchObject({ delimiter: ';', hasHeader: true, headerStart: 7, dataStart: 19 });
    expect(out.totalEmails).toBe(1);
    expect(out.output.toString()).toBe('sep=;\r\nname;email;mailvet_status\r\nAnn, PhD;ann@x.io;safe\r\n');
  });

  it('treats the next line as a data row when it holds an address', async () => {
    const out = await run(utf8('sep=,\nann@x.io\nbob@y.io\n'), 0);
    expect(out.dialect).toMatchObject({ delimiter: ',', hasHeader: false, dataStart: 6 });
    expect(out.output.toString()).toBe('sep=,\nann@x.io,safe\nbob@y.io,safe\n');
  });
});

describe('rows with no non-blank cell (item 6)', () => {
  it('pass through without a status and do not count', async () => {
    const text = 'name,email,phone\nAnn,ann@x.io,1\n,,\n  ,\t, \n"","",""\nBob,,\nTotal: 2 rows\n';
    const out = await run(utf8(text));
    expect(out.totalEmails).toBe(3);
    expect(out.output.toString()).toBe(
      'name,email,phone,mailvet_status\nAnn,ann@x.io,1,safe\n,,\n  ,\t, \n"","",""\nBob,,,block_bounce_risk\nTotal: 2 rows,block_bounce_risk\n',
    );
  });
});

describe('files that are not CSV (item 7)', () => {
  it.each([
    [
      'an .xlsx workbook',
      Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04]),
        utf8('....[Content_Types].xml....xl/workbook.xml'),
      ]),
      /Excel workbook \(\.xlsx\).*File > Save As > CSV UTF-8/,
    ],
    [
      'a ZIP archive',
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), utf8('....leads.csv')]),
      /ZIP archive/,
    ],
    ['a gzip file', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3]), /gzip-compressed/],
    ['a PNG image', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), /PNG image/],
    ['a PDF', utf8('%PDF-1.7\n1 0 obj\n'), /PDF document/],
    ['an .xls workbook', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]), /Excel 97-2003/],
    [
      'NUL bytes in a file that is not UTF-16',
      Buffer.concat([utf8('name,email\nann@x.io\n'), Buffer.from([0, 1, 2, 0, 0, 0xff])]),
      /binary data \(NUL bytes\)/,
    ],
  ])('refuses %s with a sentence saying what it is', async (_name, input, message) => {
    const failure = await run(input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotCsvError);
    expect((failure as Error).message).toMatch(message);
  });

  it('refuses NUL bytes found after the detection sample', async () => {
    const input = Buffer.concat([utf8('name,email\n' + 'ann,ann@x.io\n'.repeat(10_000)), Buffer.from([0])]);
    await expect(run(input, 1, 1 << 20, 4096)).rejects.toThrow(/binary data/);
  });
});
