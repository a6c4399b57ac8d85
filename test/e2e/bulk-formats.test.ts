// End to end over HTTP on the local runtime: every CSV shape the service accepts comes back byte for
// byte with one status column appended (small chunks, so rows and quotes straddle chunk boundaries).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { BulkClient, buildCsv, startBulkDns, type CsvModel } from './bulk-client';

jest.setTimeout(180_000);

let dns: FixtureDns;
let runtime: TestRuntime;
let client: BulkClient;

beforeAll(async () => {
  dns = await startBulkDns();
  runtime = await startTestRuntime({
    ...fixtureDnsSettings(dns),
    // Tiny chunks: a 1 KB file becomes dozens of chunks cut between rows, in and around quoted fields.
    CHUNK_SIZE_BYTES: '48',
  });
  client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
});

afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
});

const people = (d: string): CsvModel['rows'] => [
  ['name', 'email', 'note'],
  ['Ann', 'ann@ok.test', 'first'],
  ['Bob', 'bob@nowhere.test', `has ${d} inside`],
  ['Cy', 'abuse@ok.test', 'line one\nline two'],
  ['Dee', 'info@ok.test', 'say "hi"'],
  ['Eve', 'eve@slow.test', ''],
];

async function expectRoundTrip(model: CsvModel, extra: Record<string, unknown> = {}) {
  const { input, expected, statistics } = buildCsv(model);
  const result = await client.run(input, { emailColumn: model.emailColumn, ...extra });
  expect(result.final.status).toBe('completed');
  expect(result.file!.toString('utf8')).toBe(expected.toString('utf8'));
  expect(result.file!.equals(expected)).toBe(true);
  expect(result.final.statistics).toEqual(statistics);
  expect(result.final.totalEmails).toBe(Object.values(statistics).reduce((a, b) => a + b, 0));
  return result;
}

describe('bulk CSV round trip', () => {
  it.each([
    ['comma', ','],
    ['semicolon', ';'],
    ['tab', '\t'],
    ['pipe', '|'],
  ])('%s-delimited file with a header', async (_name, delimiter) => {
    await expectRoundTrip({ delimiter, header: true, emailColumn: 1, rows: people(delimiter) });
  });

  it('file without a header', async () => {
    await expectRoundTrip({ delimiter: ',', emailColumn: 1, rows: people(',').slice(1) });
  });

  it('CRLF line endings and no final line ending', async () => {
    await expectRoundTrip({
      delimiter: ';',
      header: true,
      eol: '\r\n',
      finalEol: false,
      emailColumn: 1,
      rows: people(';'),
    });
  });

  it('UTF-8 BOM', async () => {
    await expectRoundTrip({
      delimiter: ',',
      header: true,
      bom: true,
      emailColumn: 0,
      rows: [
        ['email', 'x'],
        ['ann@ok.test', '1'],
        ['bob@ok.test', '2'],
      ],
    });
  });

  it('quoted fields holding delimiters, quotes and newlines, split across chunks mid-quote', async () => {
    const long = 'a long note, with commas; semicolons | pipes\nand\r\nline breaks "quoted" '.repeat(3);
    await expectRoundTrip({
      delimiter: ',',
      header: true,
      emailColumn: 2,
      rows: [
        ['id', 'note', 'email'],
        ['1', long, 'ann@ok.test'],
        ['2', long, { raw: '"bob@ok.test"' }],
        ['3', 'short', 'cy@ok.test'],
        ['4', long, 'dee@nowhere.test'],
      ],
    });
  });

  it('blank email cells and short rows', async () => {
    await expectRoundTrip({
      delimiter: ',',
      header: true,
      emailColumn: 2,
      rows: [
        ['a', 'b', 'email'],
        ['1', '2', ''],
        ['1', '2', '   '],
        ['1'],
        ['1', '2', 'ann@ok.test'],
        ['1', '2'],
      ],
    });
  });

  it('non-ASCII text', async () => {
    await expectRoundTrip(
      {
        delimiter: ';',
        header: true,
        emailColumn: 0,
        rows: [
          ['courriel', 'nom'],
          ['ann@ok.test', 'Zoë Ångström'],
          ['bob@ok.test', '王小明 😀'],
          ['Árpád@ok.test', 'Árpád'],
        ],
      },
      { fileName: 'clients été.csv' },
    );
  });

  it('reports progress, names the download, and sends the completion webhook', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const port = (receiver.address() as AddressInfo).port;
      const rows: CsvModel['rows'] = [['email']];
      for (let n = 0; n < 300; n++) rows.push([`user${n}@ok.test`]);
      const result = await expectRoundTrip(
        { delimiter: ',', header: true, emailColumn: 0, rows },
        { fileName: 'leads.csv', callbackUrl: `http://127.0.0.1:${port}/hook` },
      );
      // Progress advances while chunks finish, not 0 then 100.
      expect(
        result.seen.some(
          (b) => b.status === 'processing' && b.percentComplete > 0 && b.percentComplete < 100,
        ),
      ).toBe(true);
      expect(result.descriptor).toMatchObject({ expiresIn: 3600, format: 'csv', jobId: result.jobId });
      expect(result.disposition).toBe('attachment; filename="leads_processed_by_mailvet.csv"');
      const deadline = Date.now() + 20_000;
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0]!.body)).toEqual({
        event: 'bulk_validation.completed',
        jobId: result.jobId,
        statistics: result.final.statistics,
        status: 'completed',
        totalEmails: 300,
      });
      expect(received[0]!.headers['webhook-id']).toBe(`msg_${result.jobId}`);
    } finally {
      receiver.close();
    }
  });
});
