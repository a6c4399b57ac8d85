// Issue 8 item 9: one syntax decision for both paths. For any string, the verdict of the single-email
// endpoint (engine.validate on the request's `email`) equals the bulk verdict of a CSV cell holding the
// same text (the validator's cell reading, then its classification of the chunk's cells).
import fc from 'fast-check';
import { readChunkRows } from '../../../functions/domain/bulk/csv/annotate';
import { classifyRows } from '../../../functions/domain/bulk/validate-chunk';
import { useFixtureDnsEngine } from './fixtures/dns-engine';

const fixtureEngine = useFixtureDnsEngine();

/** The bulk verdict of one cell holding `text`: written as a quoted CSV cell, read back by the validator. */
async function bulkVerdict(text: string): Promise<string> {
  const csv = Buffer.from(`id,email\n1,"${text.replace(/"/g, '""')}"\n`, 'utf8');
  const rows = readChunkRows(csv, {
    delimiter: ',',
    encoding: 'utf-8',
    emailColumn: 1,
    chunkStart: 0,
    headerStart: 0,
    dataStart: 9,
  });
  const data = rows.filter((row) => row.kind === 'data');
  expect(data).toHaveLength(1);
  const {
    verdicts: [verdict],
  } = await classifyRows(
    data.map((row) => row.email),
    async (emails) => {
      const batch = await fixtureEngine().prepare(emails);
      const verdicts = emails.map((email) => {
        const { status, reason } = batch.classify(email);
        return { status, reason };
      });
      return { verdicts, probes: [] };
    },
    'company',
  );
  return verdict!.status;
}

const tricky = fc.constantFrom(
  'a',
  'Z',
  '.',
  '@',
  'ok.test',
  'nx.test',
  'Bücher.test',
  ' ',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '"',
  '<',
  '>',
  ',',
  ';',
  ':',
  'mailto:',
  'John Doe ',
  '\u00a0',
  '\u200b',
  '\ufeff',
  'é',
  'e\u0301',
  '\u0301',
  '\u00a9',
  '\ue000',
  '[1.2.3.4]',
  '\\',
);
const blank = fc.constantFrom('', ' ', '\t', '\r\n', '\n', '\u00a0', '\u200b');
const anyCell = fc.oneof(
  // whitespace at every seam of a valid address
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        blank,
        fc.stringMatching(/^[a-z]{1,6}(\.[a-z]{1,6})?$/),
        blank,
        blank,
        fc.constantFrom('ok.test', 'nx.test', 'Bücher.test'),
        blank,
      )
      .map(([a, local, b, c, domain, d]) => `${a}${local}${b}@${c}${domain}${d}`),
  },
  fc.string({ unit: tricky, maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc
    .tuple(
      fc.string({ unit: tricky, maxLength: 4 }),
      fc.stringMatching(/^[a-z.]{1,8}$/),
      fc.string({ unit: tricky, maxLength: 4 }),
    )
    .map(([before, local, after]) => `${before}${local}@ok.test${after}`),
);

describe('single endpoint and bulk', () => {
  it('give one verdict for any text', async () => {
    await fc.assert(
      fc.asyncProperty(anyCell, async (text) => {
        const single = await fixtureEngine().validate(text);
        expect(await bulkVerdict(text)).toBe(single.result.status);
      }),
      { numRuns: 400 },
    );
  });

  it.each(['user@ example.com', 'user@\r\nexample.com', 'user @example.com'])(
    'rejects whitespace inside %j on both paths',
    async (text) => {
      const single = await fixtureEngine().validate(text.replace('example.com', 'ok.test'));
      expect(single.result).toMatchObject({ status: 'block_bounce_risk', reason: 'invalid_syntax' });
      expect(await bulkVerdict(text.replace('example.com', 'ok.test'))).toBe('block_bounce_risk');
    },
  );
});
