// The results assembly of a job with duplicate rows: every duplicate gets its first occurrence's status
// and reason, whatever its own chunk found (a DNS timeout or a probe can differ between two rows of one
// address), and its row index row the duplicate mark that `?unique=true` downloads leave out.
//
// One pass over the parts' row indexes in file order (data-row ordinals are the scan's): each row's
// status and reason are kept as small codes, so a duplicate looks its first occurrence up in an array.
// Only a part holding a duplicate whose status changed is rewritten; the joined index is written here,
// a segment per part.
import { ObjectWriter, putObject, readObjectBytes } from '../../store/bucket';
import type { JobItem } from '../../store/jobs/item';
import { encodeAscii, unitBytes } from './csv/encoding';
import {
  IndexSegmentWriter,
  readIndex,
  rowIndexContentType,
  type IndexSegment,
  type RowClass,
} from './csv/row-index';
import { readPairs } from './duplicates';
import { duplicatePairsKey, partIndexKey, resultIndexKey, rewrittenPartKey } from './object-keys';
import type { PartSource } from './assemble';
import { emptyStatistics, type BulkStatus, type Statistics } from './statuses';

export interface ResolvedParts {
  /** The parts to join, in order: rewritten ones in place of their originals. */
  parts: PartSource[];
  /** Per status, rows added (or, negative, taken) by giving duplicates their first's status. */
  moved: Statistics;
}

/** Interns strings as small codes. */
class Codes {
  private readonly byName = new Map<string, number>();
  readonly names: string[] = [];
  code(name: string): number {
    let code = this.byName.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.byName.set(name, code);
      this.names.push(name);
    }
    return code;
  }
}

/** A row of a part whose status the assembly changes: its number in the part and its old status. */
interface Change {
  row: number;
  from: string;
  to: string;
}

/**
 * Primary course: read the scan's duplicate pairs; walk the parts' indexes in order, giving each
 * duplicate its first occurrence's status and reason and writing the joined index with duplicate
 * marks; rewrite the parts whose duplicates changed status.
 */
export async function resolveDuplicates(job: JobItem, parts: PartSource[]): Promise<ResolvedParts> {
  const { duplicates, firsts } = readPairs(
    await readObjectBytes(duplicatePairsKey(job.companyId, job.jobId)),
  );
  const total = job.totalEmails;
  const statusOf = new Uint8Array(total);
  const reasonOf = new Uint16Array(total);
  const statuses = new Codes();
  const reasons = new Codes();
  const moved = emptyStatistics();
  const encoding = job.dialect?.encoding ?? 'utf-8';
  const width = unitBytes(encoding);
  const resolved: PartSource[] = [];
  let ordinal = 0;
  let next = 0;
  const index = await ObjectWriter.open(resultIndexKey(job.companyId, job.jobId), rowIndexContentType);
  try {
    for (const part of parts) {
      const segments = readIndex(await readObjectBytes(partIndexKey(part.key)));
      const changes: Change[] = [];
      const out = new IndexSegmentWriter(segments.reduce((sum, s) => sum + s.codes.length, 0));
      let row = 0;
      for (const { classes, codes, contentBytes } of segments) {
        // per class of the segment: its code in the joined segment, its status's and reason's codes
        const outCodes = classes.map((rowClass) => out.code(rowClass));
        const statusCodes = classes.map((c) => (c.kind === 'd' ? statuses.code(c.status) : 0));
        const reasonCodes = classes.map((c) => (c.kind === 'd' ? reasons.code(c.reason) : 0));
        // a duplicate's class in the joined segment, by its own class and its first's status and reason
        const duplicateCodes = new Map<number, number>();
        for (let n = 0; n < codes.length; n++, row++) {
          const code = codes[n]!;
          const rowClass = classes[code]!;
          let content = contentBytes[n]!;
          let outCode = outCodes[code]!;
          if (rowClass.kind === 'd') {
            let statusCode = statusCodes[code]!;
            let reasonCode = reasonCodes[code]!;
            if (ordinal === duplicates[next]) {
              const first = firsts[next++]!;
              const status = statuses.names[statusOf[first]!]!;
              if (status !== rowClass.status) {
                changes.push({ row, from: rowClass.status, to: status });
                moved[rowClass.status as BulkStatus]--;
                moved[status as BulkStatus]++;
                content += (status.length - rowClass.status.length) * width;
              }
              statusCode = statusOf[first]!;
              reasonCode = reasonOf[first]!;
              outCode = duplicateCode(duplicateCodes, out, rowClass, code, statusCode, reasonCode, {
                statuses: statuses.names,
                reasons: reasons.names,
              });
            }
            if (ordinal < total) {
              statusOf[ordinal] = statusCode;
              reasonOf[ordinal] = reasonCode;
            }
            ordinal++;
          }
          out.row(outCode, content);
        }
      }
      await index.write(out.finish());
      resolved.push(changes.length === 0 ? part : await rewritePart(part, segments, changes, encoding));
    }
    await index.close();
  } catch (error) {
    await index.abort();
    throw error;
  }
  return { parts: resolved, moved };
}

/** The joined segment's class of a duplicate: its own class with its first's status and reason, marked. */
function duplicateCode(
  cache: Map<number, number>,
  out: IndexSegmentWriter,
  rowClass: RowClass,
  code: number,
  statusCode: number,
  reasonCode: number,
  names: { statuses: string[]; reasons: string[] },
): number {
  // status codes fit a byte and reason codes 16 bits (the arrays above): one number keys all three
  const key = (code * 0x100 + statusCode) * 0x10000 + reasonCode;
  let outCode = cache.get(key);
  if (outCode === undefined) {
    outCode = out.code({
      ...rowClass,
      status: names.statuses[statusCode]!,
      reason: names.reasons[reasonCode]!,
      duplicate: true,
    });
    cache.set(key, outCode);
  }
  return outCode;
}

/** Writes a copy of the part whose changed rows carry their new status; the original stays as it was. */
async function rewritePart(
  part: PartSource,
  segments: IndexSegment[],
  changes: Change[],
  encoding: string,
): Promise<PartSource> {
  const bytes = await readObjectBytes(part.key);
  const width = unitBytes(encoding);
  const pieces: Buffer[] = [];
  let at = 0;
  let row = 0;
  let change = 0;
  // unchanged rows between two changes go as one piece
  let runStart = 0;
  for (const { classes, codes, contentBytes } of segments) {
    for (let n = 0; n < codes.length; n++, row++) {
      const content = contentBytes[n]!;
      const length = content + classes[codes[n]!]!.eolBytes;
      const next = changes[change];
      if (next?.row === row) {
        change++;
        // the status is the last field of the row's content, in the file's encoding
        const statusStart = at + content - next.from.length * width;
        pieces.push(bytes.subarray(runStart, statusStart), encodeAscii(next.to, encoding));
        runStart = at + content;
      }
      at += length;
    }
  }
  pieces.push(bytes.subarray(runStart, at));
  const rewritten = Buffer.concat(pieces);
  const key = rewrittenPartKey(part.key);
  await putObject(key, rewritten, 'text/csv');
  return { key, bytes: rewritten.length };
}
