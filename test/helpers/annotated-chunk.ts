// One chunk as a validator leaves it: a `;`-separated UTF-8 CSV whose header is `name;email` (the email
// in column 1), read, annotated with the given verdicts (the results part) and indexed (its row index).
import { annotateChunk, readChunk } from '../../functions/domain/bulk/csv/annotate';
import { indexChunk, type RowVerdict } from '../../functions/domain/bulk/csv/row-index';

/** The layout of a whole file read as one chunk, its header `name;email\r\n`. */
const semicolonLayout = {
  delimiter: ';' as const,
  encoding: 'utf-8' as const,
  emailColumn: 1,
  chunkStart: 0,
  headerStart: 0,
  dataStart: 'name;email\r\n'.length,
};

/** `input` (which starts with `name;email\r\n`) annotated with one verdict per data row. */
export function annotatedChunk(input: Buffer, verdicts: readonly RowVerdict[]) {
  const rows = readChunk(input, semicolonLayout);
  const part = annotateChunk(
    input,
    rows,
    semicolonLayout,
    verdicts.map((verdict) => verdict.status),
  );
  return { layout: semicolonLayout, rows, part, index: indexChunk(rows, verdicts) };
}
