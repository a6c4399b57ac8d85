// The results assembly of a job with duplicate rows, against the local S3: a duplicate whose own chunk
// found another status than its first occurrence (a DNS timeout in one chunk, say) gets the first's
// status and reason, its part is rewritten, the statistics move with it, and the row index marks it.
import { randomUUID } from 'node:crypto';
import { assembleResults } from '../../functions/domain/bulk/assemble';
import { annotateChunk, readChunk } from '../../functions/domain/bulk/csv/annotate';
import { encodeAscii } from '../../functions/domain/bulk/csv/encoding';
import {
  indexChunk,
  readIndex,
  rowIndexContentType,
  type RowVerdict,
} from '../../functions/domain/bulk/csv/row-index';
import {
  duplicatePairsKey,
  partIndexKey,
  partObjectKey,
  resultIndexKey,
} from '../../functions/domain/bulk/object-keys';
import { putObject, readObjectBytes } from '../../functions/store/bucket';
import type { JobItem } from '../../functions/store/jobs/item';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import { useTestRuntime } from '../helpers/local-runtime';

jest.setTimeout(120_000);

useTestRuntime();

/** Writes one chunk's part and row index as a validator does; returns the part's key and size. */
async function writePart(
  job: { companyId: string; jobId: string },
  index: number,
  chunk: Buffer,
  chunkStart: number,
  verdicts: RowVerdict[],
  encoding: string,
): Promise<{ key: string; bytes: number }> {
  const layout = {
    delimiter: ',' as const,
    encoding,
    headerStart: 0,
    dataStart: 0,
    emailColumn: 0,
    chunkStart,
  };
  const rows = readChunk(chunk, index === 0 ? layout : { ...layout, headerStart: -1 });
  const part = annotateChunk(
    chunk,
    rows,
    layout,
    verdicts.map((v) => v.status),
  );
  const key = partObjectKey(job.companyId, job.jobId, index, randomUUID());
  await putObject(key, part, 'text/csv');
  await putObject(partIndexKey(key), indexChunk(rows, verdicts, encoding), rowIndexContentType);
  return { key, bytes: part.length };
}

function pairs(list: [number, number][]): Buffer {
  const out = Buffer.alloc(list.length * 8);
  list.forEach(([duplicate, first], i) => {
    out.writeUInt32LE(duplicate, i * 8);
    out.writeUInt32LE(first, i * 8 + 4);
  });
  return out;
}

it.each(['utf-8', 'utf-16le'])(
  'gives a duplicate in a later chunk exactly its first occurrence status (%s)',
  async (encoding) => {
    const job = { companyId: `c-${randomUUID()}`, jobId: randomUUID() };
    const text = (s: string) => encodeAscii(s, encoding);
    const first = text('email\na@x.io\n');
    const second = text('A@X.IO\nb@x.io\nb@x.io\n');
    const parts = [
      await writePart(job, 0, first, 0, [{ status: 'safe', reason: 'accepted' }], encoding),
      await writePart(
        job,
        1,
        second,
        first.length,
        [
          { status: 'some_risk', reason: 'dns_timeout' },
          { status: 'block_bounce_risk', reason: 'mailbox_not_found' },
          { status: 'block_bounce_risk', reason: 'mailbox_not_found' },
        ],
        encoding,
      ),
    ];
    await putObject(
      duplicatePairsKey(job.companyId, job.jobId),
      pairs([
        [1, 0],
        [3, 2],
      ]),
      'application/octet-stream',
    );
    const item = {
      ...job,
      totalEmails: 4,
      duplicateEmails: 2,
      chunkCount: 2,
      partKeys: { '0': parts[0]!.key, '1': parts[1]!.key },
      partBytes: { '0': parts[0]!.bytes, '1': parts[1]!.bytes },
      dialect: { delimiter: ',', encoding, hasHeader: true, headerStart: 0, dataStart: 6 },
    } as unknown as JobItem;

    const { key, moved } = await assembleResults(item);

    const results = await readObjectBytes(key);
    expect(results).toEqual(
      text(
        'email,mailvet_status\na@x.io,safe\nA@X.IO,safe\nb@x.io,block_bounce_risk\nb@x.io,block_bounce_risk\n',
      ),
    );
    expect(moved).toEqual({ ...emptyStatistics(), safe: 1, some_risk: -1 });
    const index = readIndex(await readObjectBytes(resultIndexKey(job.companyId, job.jobId)));
    expect(
      index.flatMap(({ classes, codes }) =>
        Array.from(codes, (code) => {
          const { kind, status, reason, duplicate } = classes[code]!;
          return kind === 'd' ? `d ${status} ${reason}${duplicate ? ' u' : ''}` : kind;
        }),
      ),
    ).toEqual([
      'h',
      'd safe accepted',
      'd safe accepted u',
      'd block_bounce_risk mailbox_not_found',
      'd block_bounce_risk mailbox_not_found u',
    ]);
    // the originally written part is left as it was (a retried assembly starts from it again)
    expect((await readObjectBytes(parts[1]!.key)).includes(text('some_risk'))).toBe(true);
  },
);
