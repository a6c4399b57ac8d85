// The bulk pipeline without AWS: scan a buffer into chunks, then annotate each chunk as a validator does.
import { annotateChunk, readChunk } from '../../../functions/domain/bulk/csv/annotate';
import type { Dialect } from '../../../functions/domain/bulk/csv/dialect';
import { scanCsv, type ChunkRange } from '../../../functions/domain/bulk/csv/scan';
import {
  countStatuses,
  emptyStatistics,
  type BulkStatus,
  type Statistics,
} from '../../../functions/domain/bulk/statuses';

export interface PipelineOutput {
  output: Buffer;
  dialect: Dialect;
  chunks: ChunkRange[];
  totalEmails: number;
  statistics: Statistics;
}

/** Splits `input` into pieces of `pieceBytes` to exercise the streaming scanner's piece boundaries. */
async function* pieces(input: Buffer, pieceBytes: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < input.length; at += pieceBytes) yield input.subarray(at, at + pieceBytes);
}

export async function runPipeline(
  input: Buffer,
  options: {
    emailColumn: number;
    chunkSizeBytes: number;
    pieceBytes?: number;
    classify: (email: string) => BulkStatus;
  },
): Promise<PipelineOutput> {
  const chunks: ChunkRange[] = [];
  let dialect: Dialect | undefined;
  const scan = await scanCsv(pieces(input, options.pieceBytes ?? 65536), {
    emailColumn: options.emailColumn,
    chunkSizeBytes: options.chunkSizeBytes,
    onChunks: (cut, d) => {
      chunks.push(...cut);
      dialect = d;
    },
  });
  const parts: Buffer[] = [];
  const statistics = emptyStatistics();
  for (const chunk of chunks) {
    const bytes = input.subarray(chunk.start, chunk.end);
    const layout = { ...scan.dialect, emailColumn: options.emailColumn, chunkStart: chunk.start };
    const rows = readChunk(bytes, layout);
    const statuses = rows.emails.map((email) =>
      email === undefined || email === '' ? 'block_bounce_risk' : options.classify(email),
    );
    if (statuses.length !== chunk.dataRows)
      throw new Error(`chunk ${chunk.index}: scan and validator disagree on rows`);
    for (const [status, n] of Object.entries(countStatuses(statuses))) statistics[status as BulkStatus] += n;
    parts.push(annotateChunk(bytes, rows, layout, statuses));
  }
  return {
    output: Buffer.concat(parts),
    dialect: dialect ?? scan.dialect,
    chunks,
    totalEmails: scan.dataRows,
    statistics,
  };
}
