// Filtered and reason-column copies against the local S3, from the results file and its row index as
// stored: a job completed before the binary row index has a text one, and its copies must come out
// byte for byte as a binary index makes them.
import { randomUUID } from 'node:crypto';
import {
  readIndex,
  rowIndexContentType,
  type ResultsVariant,
} from '../../functions/domain/bulk/csv/row-index';
import { formatIndexLine } from '../../functions/domain/bulk/csv/row-index-text';
import { produceVariant } from '../../functions/domain/bulk/results-variants';
import { putObject, readObjectBytes } from '../../functions/store/bucket';
import { annotatedChunk } from '../helpers/annotated-chunk';
import { useTestRuntime } from '../helpers/local-runtime';

jest.setTimeout(120_000);

useTestRuntime();

/** The text index (the format before the binary one) of the same rows as a binary index. */
function asText(binary: Buffer): Buffer {
  const lines = readIndex(binary).flatMap(({ classes, codes, contentBytes }) =>
    Array.from(codes, (code, n) => {
      const { kind, eolBytes, status, reason, duplicate } = classes[code]!;
      const row = { contentBytes: contentBytes[n]!, eolBytes };
      return formatIndexLine(kind === 'd' ? { kind, ...row, status, reason, duplicate } : { kind, ...row });
    }),
  );
  return Buffer.from(lines.map((line) => `${line}\n`).join(''), 'latin1');
}

it('makes the same copy from a text row index (jobs completed before the binary one) as from a binary one', async () => {
  const input = Buffer.from(
    'name;email\r\nAnn;ann@ok.test\r\n\r\n"B;\r\nb";bob@no.test\r\nCy;\r\nDee;dee@ok.test',
    'utf8',
  );
  const verdicts = [
    { status: 'safe', reason: 'accepted' },
    { status: 'dead_email', reason: 'no_such_domain' },
    { status: 'block_bounce_risk', reason: 'blank' },
    { status: 'safe', reason: 'accepted' },
  ];
  const { part: results, index: binary } = annotatedChunk(input, verdicts);
  const prefix = `results/c-${randomUUID()}/${randomUUID()}`;
  await putObject(`${prefix}.csv`, results, 'text/csv');
  await putObject(`${prefix}.index`, binary, rowIndexContentType);
  await putObject(`${prefix}.text-index`, asText(binary), 'text/plain');

  const variants: ResultsVariant[] = [
    { statuses: new Set(['safe']), reason: false, delimiter: ';', encoding: 'utf-8' },
    { reason: true, delimiter: ';', encoding: 'utf-8' },
    {
      statuses: new Set(['dead_email', 'block_bounce_risk']),
      reason: true,
      delimiter: ';',
      encoding: 'utf-8',
    },
  ];
  const copies: string[] = [];
  for (const [n, variant] of variants.entries()) {
    await produceVariant(`${prefix}.csv`, `${prefix}.index`, `${prefix}.${n}.csv`, variant);
    await produceVariant(`${prefix}.csv`, `${prefix}.text-index`, `${prefix}.${n}-text.csv`, variant);
    const fromBinary = await readObjectBytes(`${prefix}.${n}.csv`);
    expect((await readObjectBytes(`${prefix}.${n}-text.csv`)).equals(fromBinary)).toBe(true);
    copies.push(fromBinary.toString('utf8'));
  }
  expect(copies).toEqual([
    'name;email;mailvet_status\r\nAnn;ann@ok.test;safe\r\n\r\nDee;dee@ok.test;safe',
    'name;email;mailvet_status;mailvet_reason\r\nAnn;ann@ok.test;safe;accepted\r\n\r\n' +
      '"B;\r\nb";bob@no.test;dead_email;no_such_domain\r\nCy;;block_bounce_risk;blank\r\nDee;dee@ok.test;safe;accepted',
    'name;email;mailvet_status;mailvet_reason\r\n\r\n"B;\r\nb";bob@no.test;dead_email;no_such_domain\r\n' +
      'Cy;;block_bounce_risk;blank\r\n',
  ]);
});
