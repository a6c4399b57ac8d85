import { detectDialect, looksLikeEmail } from '../../../functions/domain/bulk/csv/dialect';
import { runPipeline } from './in-memory-pipeline';

const safe = () => 'safe' as const;
const run = (text: string | Buffer, emailColumn = 1, chunkSizeBytes = 1 << 20, pieceBytes?: number) =>
  runPipeline(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), {
    emailColumn,
    chunkSizeBytes,
    pieceBytes,
    classify: safe,
  });

describe('delimiter detection', () => {
  it.each([
    [',', 'name,email\nAnn,ann@x.io\nBob,bob@y.io\n'],
    [';', 'name;email\nAnn;ann@x.io\nBob;bob@y.io\n'],
    ['\t', 'name\temail\nAnn\tann@x.io\nBob\tbob@y.io\n'],
    ['|', 'name|email\nAnn|ann@x.io\nBob|bob@y.io\n'],
  ])('detects %j', (delimiter, text) => {
    expect(detectDialect(Buffer.from(text), 1, true)).toEqual({
      delimiter,
      encoding: 'utf-8',
      hasHeader: true,
      headerStart: 0,
      dataStart: 11,
    });
  });

  it('is not fooled by other delimiters inside quoted fields', () => {
    const text = 'name;email\n"Smith, Ann; PhD";ann@x.io\n"a,b,c,d";bob@y.io\n';
    expect(detectDialect(Buffer.from(text), 1, true).delimiter).toBe(';');
  });

  it('prefers the delimiter whose email column holds addresses', () => {
    const text = 'a@x.io;1,2,3\nb@y.io;4,5,6\n';
    expect(detectDialect(Buffer.from(text), 0, true).delimiter).toBe(';');
  });

  it('falls back to comma for a one-column file', () => {
    expect(detectDialect(Buffer.from('a@x.io\nb@y.io\n'), 0, true)).toEqual({
      delimiter: ',',
      encoding: 'utf-8',
      hasHeader: false,
      dataStart: 0,
    });
  });
});

describe('header detection', () => {
  it('treats a first row without an address as a header when later rows have addresses', () => {
    expect(detectDialect(Buffer.from('Email\nann@x.io\n'), 0, true).hasHeader).toBe(true);
  });

  it('sees no header when the first row holds an address', () => {
    expect(detectDialect(Buffer.from('ann@x.io\nbob@y.io\n'), 0, true).hasHeader).toBe(false);
  });

  it('sees no header when no row holds an address', () => {
    expect(detectDialect(Buffer.from('foo\nbar\n'), 0, true).hasHeader).toBe(false);
  });

  it('looks past a BOM and quotes in the first cell', () => {
    expect(detectDialect(Buffer.from('\ufeff"email",name\n"ann@x.io",Ann\n'), 0, true)).toEqual({
      delimiter: ',',
      encoding: 'utf-8',
      hasHeader: true,
      headerStart: 0,
      dataStart: 16,
    });
  });

  it('recognises address shapes loosely but never across delimiters', () => {
    expect(looksLikeEmail('a.b+c@sub.example.org')).toBe(true);
    expect(looksLikeEmail('a@b.co;x')).toBe(false);
    expect(looksLikeEmail('email')).toBe(false);
    expect(looksLikeEmail('a@localhost')).toBe(false);
  });
});

describe('results rows', () => {
  it('appends the status before each line ending and mailvet_status to the header', async () => {
    const { output, totalEmails } = await run('name,email\r\nAnn,ann@x.io\r\nBob,bob@y.io');
    expect(output.toString()).toBe('name,email,mailvet_status\r\nAnn,ann@x.io,safe\r\nBob,bob@y.io,safe');
    expect(totalEmails).toBe(2);
  });

  it('keeps a BOM and a final line ending', async () => {
    const { output } = await run('\ufeffemail\nann@x.io\n', 0);
    expect(output.toString()).toBe('\ufeffemail,mailvet_status\nann@x.io,safe\n');
  });

  it('keeps quoted fields holding delimiters, quotes and newlines intact', async () => {
    const text = 'note;email\n"a;b\nc ""quoted""";ann@x.io\n"x\r\ny";"bob@y.io"\n';
    const { output, totalEmails } = await run(text);
    expect(output.toString()).toBe(
      'note;email;mailvet_status\n"a;b\nc ""quoted""";ann@x.io;safe\n"x\r\ny";"bob@y.io";safe\n',
    );
    expect(totalEmails).toBe(2);
  });

  it('gives blank cells and short rows block_bounce_risk', async () => {
    const { output, statistics } = await run('name,email\nAnn,ann@x.io\nBob,\nCy\nDee,"  "\n');
    expect(output.toString()).toBe(
      'name,email,mailvet_status\nAnn,ann@x.io,safe\nBob,,block_bounce_risk\nCy,block_bounce_risk\nDee,"  ",block_bounce_risk\n',
    );
    expect(statistics).toEqual({
      safe: 1,
      block_bounce_risk: 3,
      some_risk: 0,
      dead_email: 0,
      do_not_mail_abuse: 0,
    });
  });

  it('passes empty lines through without a status', async () => {
    const { output, totalEmails } = await run('\nemail\n\nann@x.io\n\n', 0);
    expect(output.toString()).toBe('\nemail,mailvet_status\n\nann@x.io,safe\n\n');
    expect(totalEmails).toBe(1);
  });

  it('ends rows at a lone CR too', async () => {
    const { output } = await run('email\rann@x.io\rbob@y.io', 0);
    expect(output.toString()).toBe('email,mailvet_status\rann@x.io,safe\rbob@y.io,safe');
  });

  it('keeps non-ASCII bytes as they were', async () => {
    const text = 'név,email\nÁrpád Ørsted 漢字,árpád@példa.hu\n';
    const { output } = await run(text);
    expect(output.toString('utf8')).toBe('név,email,mailvet_status\nÁrpád Ørsted 漢字,árpád@példa.hu,safe\n');
  });
});

describe('chunking', () => {
  const text = 'note,email\n"line one\nline two, still quoted",a@x.io\n"x ""y"" z",b@y.io\nplain,c@z.io\n';

  it.each([1, 5, 17, 40])('cuts only at row ends (chunk size %i, stream pieces of 3 bytes)', async (size) => {
    const single = await run(text, 1, 1 << 20);
    const small = await run(text, 1, size, 3);
    expect(small.output.equals(single.output)).toBe(true);
    for (const chunk of small.chunks) {
      expect(text.slice(0, chunk.start).split('"').length % 2).toBe(1); // an even number of quotes before: not inside quotes
    }
    expect(small.chunks.length).toBeGreaterThan(1);
  });

  it('produces one chunk per row with a one-byte chunk size', async () => {
    const { chunks } = await run('email\na@x.io\nb@y.io\n', 0, 1);
    expect(chunks.map((c) => [c.start, c.end, c.dataRows, c.headerRow])).toEqual([
      [0, 6, 0, true],
      [6, 13, 1, false],
      [13, 20, 1, false],
    ]);
  });

  it('finds no data rows in an empty file or a lone header', async () => {
    expect((await run('', 0)).totalEmails).toBe(0);
    expect((await run('email\n', 0)).totalEmails).toBe(0); // a lone row without '@' is a header
    expect((await run('not-an-address@\n', 0)).totalEmails).toBe(1); // with '@' it is data
    expect((await run('email\n\n', 0)).chunks.length).toBe(1);
  });
});

describe('real-world exports: the delimiter', () => {
  // Prose as CRM notes carry it: semicolons, commas, escaped quotes and line breaks, all inside one cell.
  const prose = 'Called about the renewal; she said ""send the quote, then we talk"".\nFollow up in May; ';

  it('keeps `,` for a comma export whose notes cell is a 1 MB quoted paragraph', async () => {
    const head = 'name,email,notes\nAda Lovelace,ada@example.com,"';
    // Put an escaped quote across the first piece boundary after the 64 KB sample: the scan must read
    // on, since only the byte after a quote tells a closing quote from the first of `""`.
    let notes = prose.repeat(Math.ceil(65_535 / prose.length)).slice(0, 65_535 - head.length);
    notes += '""' + prose.repeat(Math.ceil(1_000_000 / prose.length));
    expect(Buffer.byteLength(head + notes)).toBeGreaterThan(1_000_000);
    expect(notes.indexOf('""', 65_535 - head.length - 2)).toBe(65_535 - head.length);
    const tail = '"\nGrace Hopper,grace@example.com,short note\n';
    const input = head + notes + tail;

    const result = await run(input, 1, 1 << 20, 65_536);

    expect(result.dialect.delimiter).toBe(',');
    expect(result.totalEmails).toBe(2);
    const output = result.output.toString('utf8');
    expect(output.startsWith('name,email,notes,mailvet_status\n')).toBe(true);
    expect(output.endsWith('",safe\nGrace Hopper,grace@example.com,short note,safe\n')).toBe(true);
    expect(output).toContain(`${notes}",safe\n`);
  });

  it('reads a file of empty fields (`,,` rows) with `,`, so it has no data rows', async () => {
    const input = ',,\n,,\n,,\r\n,,\n';
    const result = await run(input, 1);
    expect(result.dialect.delimiter).toBe(',');
    expect(result.totalEmails).toBe(0);
    expect(result.output.toString('utf8')).toBe(input);
  });

  it('never chooses a delimiter that does not occur over one that does, whatever the row counts', () => {
    // `;` reads ten one-field rows, `,` only two rows of two fields: `,` occurs, so `,` it is.
    const text = 'a,\n,\n' + 'x\n'.repeat(10);
    expect(detectDialect(Buffer.from(text), 0, true).delimiter).toBe(',');
  });
});
