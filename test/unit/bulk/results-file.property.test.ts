// Property: for random CSVs, the results file is the input with exactly one column appended (rows with
// no non-blank cell pass through), and the statistics sum to totalEmails, whatever the chunk size and
// stream piece size.
import fc from 'fast-check';
import { bulkStatuses, type BulkStatus } from '../../../functions/domain/bulk/statuses';
import { runPipeline } from './in-memory-pipeline';

const emailColumn = 1;

/** A deterministic stand-in for the engine that uses every status. */
function classify(email: string): BulkStatus {
  let h = 0;
  for (const c of email) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return bulkStatuses[h % bulkStatuses.length]!;
}

// Other fields: any text, but no '@' (only the email column holds addresses, so detection is certain).
const textField = fc.string({
  unit: fc.constantFrom('a', 'Z', ' ', ',', ';', '\t', '|', '"', '\n', '\r', 'é', '漢', '😀', '-'),
  maxLength: 12,
});
const address = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9][a-z0-9.+]{0,6}$/),
    fc.stringMatching(/^[a-z]{1,6}$/),
    fc.constantFrom('io', 'com', 'de'),
  )
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
const emailCell = fc.oneof(
  { weight: 6, arbitrary: address },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constant('   ') },
  { weight: 1, arbitrary: fc.constant('not-an-address') },
  { weight: 1, arbitrary: address.map((a) => ` ${a} `) },
);

interface Row {
  /** Field values (unquoted); [] is an empty line. */
  fields: string[];
  /** Quote fields that do not need it too. */
  quoteAll: boolean;
}

const dataRow = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      fields: fc.tuple(textField, emailCell, textField).map((f) => [...f]),
      quoteAll: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ fields: textField.map((f) => [f === '' ? 'x' : f]), quoteAll: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant<Row>({ fields: [], quoteAll: false }) },
);

const csvModel = fc.record({
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  header: fc.boolean(),
  bom: fc.boolean(),
  eol: fc.constantFrom('\n', '\r\n'),
  finalEol: fc.boolean(),
  first: address,
  rows: fc.array(dataRow, { maxLength: 25 }),
  chunkSizeBytes: fc.integer({ min: 1, max: 300 }),
  pieceBytes: fc.integer({ min: 1, max: 64 }),
});

function encodeField(value: string, delimiter: string, quoteAll: boolean): string {
  const needs = value.includes(delimiter) || /["\r\n]/.test(value) || value.startsWith(' "');
  return needs || quoteAll ? `"${value.replace(/"/g, '""')}"` : value;
}

describe('results file (property)', () => {
  it('is the input plus one column, with statistics summing to totalEmails', async () => {
    await fc.assert(
      fc.asyncProperty(csvModel, async (m) => {
        // The first row is the header ("email" cell) or a data row with an address, so detection is decided.
        const rows: Row[] = [
          { fields: ['name', m.header ? 'email' : m.first, 'note'], quoteAll: false },
          { fields: ['x', m.first, 'y'], quoteAll: false },
          ...m.rows,
        ];
        let input = m.bom ? '\ufeff' : '';
        let expected = input;
        let dataStart = 0;
        const statistics = Object.fromEntries(bulkStatuses.map((s) => [s, 0])) as Record<BulkStatus, number>;
        rows.forEach((row, n) => {
          const line = row.fields.map((f) => encodeField(f, m.delimiter, row.quoteAll)).join(m.delimiter);
          const eol = n < rows.length - 1 || m.finalEol ? m.eol : '';
          input += line + eol;
          if (n === 0) dataStart = m.header ? Buffer.byteLength(input) : 0;
          // A row with no non-blank cell (an empty line, `,,`, `"  ",`) passes through without a status.
          if (row.fields.every((f) => /^[ \t\r\n]*$/.test(f))) {
            expected += line + eol;
            return;
          }
          let status: string;
          if (n === 0 && m.header) status = 'mailvet_status';
          else {
            const cell = row.fields[emailColumn]?.trim();
            const s: BulkStatus = cell === undefined || cell === '' ? 'block_bounce_risk' : classify(cell);
            statistics[s]++;
            status = s;
          }
          expected += line + m.delimiter + status + eol;
        });
        const result = await runPipeline(Buffer.from(input, 'utf8'), {
          emailColumn,
          chunkSizeBytes: m.chunkSizeBytes,
          pieceBytes: m.pieceBytes,
          classify,
        });
        expect(result.dialect).toEqual({
          delimiter: m.delimiter,
          encoding: 'utf-8',
          hasHeader: m.header,
          dataStart,
          ...(m.header ? { headerStart: 0 } : {}), // the BOM belongs to the first row
        });
        expect(result.output.toString('utf8')).toBe(expected);
        expect(result.statistics).toEqual(statistics);
        const sum = Object.values(result.statistics).reduce((a, b) => a + b, 0);
        expect(sum).toBe(result.totalEmails);
      }),
      { numRuns: 400 },
    );
  });
});
