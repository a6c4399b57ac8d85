// The results assembly of a job with duplicate rows: every duplicate gets its first occurrence's status
// and reason, whatever its own chunk found (a DNS timeout or a probe can differ between two rows of one
// address), and its row index line the `u` mark that `?unique=true` downloads leave out.
//
// One pass over the parts' row indexes in file order (data-row ordinals are the scan's): each row's
// status and reason are kept as small codes, so a duplicate looks its first occurrence up in an array.
// Only a part holding a duplicate whose status changed is rewritten; the joined index is written here.
import { ObjectWriter, putObject, readObjectBytes } from '../../store/bucket';
import type { JobItem } from '../../store/jobs/item';
import { encodeAscii, unitBytes } from './csv/encoding';
import { formatIndexLine, parseIndexLine, type IndexedRow } from './csv/row-index';
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

/** A row of a part whose status the assembly changes: its line in the part's index and the old status. */
interface Change {
  line: number;
  from: string;
  to: string;
}

/**
 * Primary course: read the scan's duplicate pairs; walk the parts' indexes in order, giving each
 * duplicate its first occurrence's status and reason and writing the joined index with `u` marks;
 * rewrite the parts whose duplicates changed status.
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
  const index = await ObjectWriter.open(resultIndexKey(job.companyId, job.jobId), 'text/plain');
  try {
    for (const part of parts) {
      const lines = (await readObjectBytes(partIndexKey(part.key))).toString('latin1').split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const rows: IndexedRow[] = lines.map(parseIndexLine);
      const changes: Change[] = [];
      const out: string[] = [];
      rows.forEach((row, line) => {
        if (row.kind === 'd') {
          if (ordinal === duplicates[next]) {
            const first = firsts[next++]!;
            const status = statuses.names[statusOf[first]!]!;
            const reason = reasons.names[reasonOf[first]!]!;
            if (status !== row.status) {
              changes.push({ line, from: row.status, to: status });
              moved[row.status as BulkStatus]--;
              moved[status as BulkStatus]++;
              row.contentBytes += (status.length - row.status.length) * width;
            }
            Object.assign(row, { status, reason, duplicate: true });
          }
          if (ordinal < total) {
            statusOf[ordinal] = statuses.code(row.status);
            reasonOf[ordinal] = reasons.code(row.reason);
          }
          ordinal++;
        }
        out.push(formatIndexLine(row));
      });
      if (out.length > 0) await index.write(Buffer.from(out.join('\n') + '\n', 'latin1'));
      resolved.push(changes.length === 0 ? part : await rewritePart(part, lines, changes, encoding));
    }
    await index.close();
  } catch (error) {
    await index.abort();
    throw error;
  }
  return { parts: resolved, moved };
}

/** Writes a copy of the part whose changed rows carry their new status; the original stays as it was. */
async function rewritePart(
  part: PartSource,
  originalLines: string[],
  changes: Change[],
  encoding: string,
): Promise<PartSource> {
  const bytes = await readObjectBytes(part.key);
  const width = unitBytes(encoding);
  const pieces: Buffer[] = [];
  let at = 0;
  let change = 0;
  originalLines.forEach((line, n) => {
    const row = parseIndexLine(line);
    const length = row.contentBytes + row.eolBytes;
    const next = changes[change];
    if (next?.line === n) {
      change++;
      // the status is the last field of the row's content, in the file's encoding
      const statusStart = at + row.contentBytes - next.from.length * width;
      pieces.push(bytes.subarray(at, statusStart), encodeAscii(next.to, encoding));
      pieces.push(bytes.subarray(at + row.contentBytes, at + length));
    } else pieces.push(bytes.subarray(at, at + length));
    at += length;
  });
  const rewritten = Buffer.concat(pieces);
  const key = rewrittenPartKey(part.key);
  await putObject(key, rewritten, 'text/csv');
  return { key, bytes: rewritten.length };
}
