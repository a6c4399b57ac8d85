// Issue 8 end to end: a corpus of real-world export shapes, generated here, through the local runtime
// (create, PUT, poll, download). Per shape: the results file byte for byte, totals, statistics, the
// detected encoding, and the statuses of marker rows; files that are not CSV end `failed` with a sentence.
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { BulkClient, startBulkDns, zeroStatistics, type JobBody } from './bulk-client';

jest.setTimeout(300_000);

let dns: FixtureDns;
let runtime: TestRuntime;
let client: BulkClient;

beforeAll(async () => {
  dns = await startBulkDns();
  // Small chunks: rows of every shape straddle chunk boundaries (UTF-16 ones included).
  runtime = await startTestRuntime({ ...fixtureDnsSettings(dns), CHUNK_SIZE_BYTES: '128' });
  client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
});

afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
});

/** One line of a shape: its text, and the status the service must append (none: passes through). */
type Line = [text: string, status?: string];

interface Shape {
  lines: Line[];
  delimiter: string;
  eol?: string;
  finalEol?: boolean;
  encoding?: string;
  bom?: boolean;
  emailColumn: number;
  /** The encoding the job must report. */
  reports: string;
}

const H = 'mailvet_status';
const S = 'safe';
const B = 'block_bounce_risk';
const R = 'some_risk';
const A = 'do_not_mail_abuse';

/** The upload and the results file, built from the lines without the service's code. */
function build(shape: Shape) {
  const eol = shape.eol ?? '\n';
  const encode = (text: string) => iconv.encode(text, shape.encoding ?? 'utf-8', { addBOM: false });
  const bom = shape.bom ? encode('\ufeff') : Buffer.alloc(0);
  const inputs: Buffer[] = [bom];
  const outputs: Buffer[] = [bom];
  const statistics = zeroStatistics();
  shape.lines.forEach(([text, status], n) => {
    const end = n < shape.lines.length - 1 || shape.finalEol !== false ? eol : '';
    inputs.push(encode(text + end));
    outputs.push(encode(status === undefined ? text + end : text + shape.delimiter + status + end));
    if (status !== undefined && status !== H) statistics[status]!++;
  });
  return { input: Buffer.concat(inputs), expected: Buffer.concat(outputs), statistics };
}

async function expectShape(shape: Shape) {
  const { input, expected, statistics } = build(shape);
  const result = await client.run(input, { emailColumn: shape.emailColumn, fileName: 'export.csv' });
  expect(result.final.error).toBeUndefined();
  expect(result.final.status).toBe('completed');
  expect((result.final as JobBody & { encoding?: string }).encoding).toBe(shape.reports);
  expect(result.final.statistics).toEqual(statistics);
  expect(result.final.totalEmails).toBe(Object.values(statistics).reduce((a, b) => a + b, 0));
  // Decoded first, for a readable diff; then byte for byte.
  const decode = (b: Buffer) => iconv.decode(b, shape.encoding ?? 'utf-8', { stripBOM: false });
  expect(decode(result.file!)).toBe(decode(expected));
  expect(result.file!.equals(expected)).toBe(true);
}

const people: Line[] = [
  ['Ann\tann@ok.test', S],
  ['Zoë Ångström\tzoe@ok.test', S],
  ['Abuse desk\tabuse@ok.test', A],
  ['Gone\tgone@nowhere.test', B],
  ['Slow\teve@slow.test', R],
];

describe('encodings (items 1-2)', () => {
  it.each([
    ['UTF-16 LE with BOM, tab-delimited (Excel "Unicode Text")', 'utf-16le', true],
    ['UTF-16 BE with BOM', 'utf-16be', true],
    ['UTF-16 LE without BOM', 'utf-16le', false],
  ])('%s', async (_name, encoding, bom) => {
    await expectShape({
      lines: [['Name\tEmail', H], ...people],
      delimiter: '\t',
      eol: '\r\n',
      encoding,
      bom,
      emailColumn: 1,
      reports: encoding,
    });
  });

  it('Windows-1252: a no-break space after an address and an accented name', async () => {
    await expectShape({
      lines: [
        ['Nom;Courriel', H],
        ['José “Pepe” Núñez;jose@ok.test\u00a0', S],
        ['Françoise;francoise@ok.test', S],
        ['Søren;soren@nowhere.test', B],
        ['Café € ©;info@ok.test', R],
      ],
      delimiter: ';',
      eol: '\r\n',
      encoding: 'windows-1252',
      emailColumn: 1,
      reports: 'windows-1252',
    });
  });

  it('Shift_JIS', async () => {
    await expectShape({
      lines: [
        ['名前,メールアドレス', H],
        ['山田太郎,yamada@ok.test', S],
        ['佐藤花子,sato@ok.test', S],
        ['鈴木一郎,suzuki@nowhere.test', B],
      ],
      delimiter: ',',
      encoding: 'shift_jis',
      emailColumn: 1,
      reports: 'shift_jis',
    });
  });

  it('Mac Roman keeps its bytes (read as Windows-1252)', async () => {
    await expectShape({
      lines: [
        ['name,email', H],
        ['Café Zoë,cafe@ok.test', S],
        ['Ann,ann@nowhere.test', B],
      ],
      delimiter: ',',
      eol: '\r',
      encoding: 'macintosh',
      emailColumn: 1,
      reports: 'windows-1252',
    });
  });

  it('Excel "CSV UTF-8": BOM and CRLF', async () => {
    await expectShape({
      lines: [
        ['First name,Last name,Email', H],
        ['Ann,Lee,ann@ok.test', S],
        ['"Ray, Bob",Ray,bob@ok.test', S],
      ],
      delimiter: ',',
      eol: '\r\n',
      bom: true,
      emailColumn: 2,
      reports: 'utf-8',
    });
  });

  it('Google Sheets: no final line ending', async () => {
    await expectShape({
      lines: [
        ['email,name', H],
        ['ann@ok.test,Ann', S],
        ['postmaster@ok.test,PM', A],
      ],
      delimiter: ',',
      finalEol: false,
      emailColumn: 0,
      reports: 'utf-8',
    });
  });

  it('CR-only line endings (classic Mac)', async () => {
    await expectShape({
      lines: [
        ['email', H],
        ['ann@ok.test', S],
        ['bob@nowhere.test', B],
      ],
      delimiter: ',',
      eol: '\r',
      emailColumn: 0,
      reports: 'utf-8',
    });
  });
});

describe('dialect and header (items 3-6)', () => {
  it('a preamble, multi-line quoted cells and sparse rows: the delimiter that occurs', async () => {
    await expectShape({
      lines: [
        ['Report generated 2026-11-01'],
        [''],
        ['id;note;email;phone', H],
        ['1;"first line\nsecond line; with ; semicolons";;', B],
        ['2;;;', B],
        ['3;"a, b, c";ann@ok.test;555', S],
        ['4;;;', B],
      ],
      delimiter: ';',
      emailColumn: 2,
      reports: 'utf-8',
    });
  });

  it('a quoted cell longer than the detection sample', async () => {
    const long = `"${'notes; with | pipes\n'.repeat(5000)}"`; // ~100 KB
    await expectShape({
      lines: [
        ['id,note,email', H],
        [`1,${long},ann@ok.test`, S],
        ['2,short,bob@ok.test', S],
      ],
      delimiter: ',',
      emailColumn: 2,
      reports: 'utf-8',
    });
  });

  it('a CRM export whose first rows have blank emails: header by its title', async () => {
    await expectShape({
      lines: [
        ['Company,Contact,E-mail Address', H],
        ['Acme,Ann,', B],
        ['Globex,Bob,', B],
        ['Initech,Cy,cy@ok.test', S],
      ],
      delimiter: ',',
      emailColumn: 2,
      reports: 'utf-8',
    });
  });

  it('a LinkedIn export: "Notes:" preamble before the header', async () => {
    await expectShape({
      lines: [
        ['Notes:'],
        [
          '"When exporting your connection data, you may notice that some of the email addresses are missing."',
        ],
        [''],
        ['First Name,Last Name,URL,Email Address,Company,Position,Connected On', H],
        ['Ann,Lee,https://www.linkedin.com/in/ann,ann@ok.test,Acme,CEO,01 Nov 2026', S],
        ['Bob,Ray,https://www.linkedin.com/in/bob,,Globex,CTO,02 Nov 2026', B],
      ],
      delimiter: ',',
      emailColumn: 3,
      reports: 'utf-8',
    });
  });

  it("Excel's sep=; first line", async () => {
    await expectShape({
      lines: [['sep=;'], ['Name;Email', H], ['Lee, Ann;ann@ok.test', S], ['Ray, Bob;bob@nowhere.test', B]],
      delimiter: ';',
      eol: '\r\n',
      emailColumn: 1,
      reports: 'utf-8',
    });
  });

  it('rows of empty cells (,,,,) pass through; a footer row gets a status', async () => {
    await expectShape({
      lines: [
        ['name,email,phone,city', H],
        ['Ann,ann@ok.test,1,Oslo', S],
        [',,,'],
        ['Bob,bob@ok.test,2,Rome', S],
        [',,,'],
        ['  ,"", ,'],
        ['Total: 2 contacts', B],
      ],
      delimiter: ',',
      eol: '\r\n',
      emailColumn: 1,
      reports: 'utf-8',
    });
  });

  it('200 columns', async () => {
    const cols = (n: number, value: (c: number) => string) =>
      Array.from({ length: n }, (_, c) => value(c)).join(',');
    await expectShape({
      lines: [
        [cols(200, (c) => (c === 150 ? 'Email' : `col${c}`)), H],
        [cols(200, (c) => (c === 150 ? 'ann@ok.test' : `v${c}`)), S],
        [cols(200, (c) => (c === 150 ? 'bob@nowhere.test' : '')), B],
      ],
      delimiter: ',',
      emailColumn: 150,
      reports: 'utf-8',
    });
  });

  it('a 1 MB cell', async () => {
    await expectShape({
      lines: [
        ['email,blob', H],
        [`ann@ok.test,${'x'.repeat(1024 * 1024)}`, S],
        ['bob@ok.test,small', S],
      ],
      delimiter: ',',
      emailColumn: 0,
      reports: 'utf-8',
    });
  });
});

describe('addresses inside cells (item 8)', () => {
  it('validates the one address a cell holds; two addresses are invalid; the cell is kept', async () => {
    await expectShape({
      lines: [
        ['name,email', H],
        ['Ann,"""Ann Lee"" <ann@ok.test>"', S],
        ['Bob,<bob@ok.test>', S],
        ['Cy,mailto:cy@ok.test', S],
        ['Dee,dee@ok.test.', S],
        ['Eve,eve@ok.test;', S],
        ['Fay,fay@ok.test\u200b', S],
        ['Two,"a@ok.test; b@ok.test"', B],
        ['Gap,gus@ ok.test', B],
      ],
      delimiter: ',',
      emailColumn: 1,
      reports: 'utf-8',
    });
  });
});

describe('files that are not CSV (item 7)', () => {
  const xlsx = Buffer.concat([
    Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0]),
    Buffer.from('[Content_Types].xml', 'latin1'),
    Buffer.alloc(40, 1),
    Buffer.from([0x50, 0x4b, 0x03, 0x04]),
    Buffer.from('xl/workbook.xml', 'latin1'),
  ]);
  it.each([
    [
      'an .xlsx renamed .csv',
      xlsx,
      'This file is an Excel workbook (.xlsx), not CSV. In Excel choose File > Save As > CSV UTF-8 and upload that.',
    ],
    [
      'a gzip file',
      gzipSync(Buffer.from('email\nann@ok.test\n')),
      'This file is gzip-compressed, not CSV. Decompress it and upload the CSV file inside.',
    ],
    [
      'a PNG',
      Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
      'This file is a PNG image, not CSV. Export your list as CSV (UTF-8) and upload that.',
    ],
    [
      'a PDF',
      Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n', 'latin1'),
      'This file is a PDF document, not CSV. Export your list as CSV (UTF-8) and upload that.',
    ],
    [
      'a file with NUL bytes that is not UTF-16',
      Buffer.concat([Buffer.from('email\nann@ok.test\n'), Buffer.from([0, 0, 7, 0, 0xff, 0, 0x10])]),
      'This file contains binary data (NUL bytes), so it is not CSV text. Export your list as CSV (UTF-8) and upload that.',
    ],
  ])('%s fails the job with a sentence a person can act on', async (_name, file, error) => {
    const result = await client.run(file, { emailColumn: 0 });
    expect(result.final).toMatchObject({ status: 'failed', error });
    const download = await client.request('GET', `/v1/email/validate-file/${result.jobId}/download`);
    expect(download.status).toBe(409);
  });
});
