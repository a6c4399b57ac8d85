// S3 object keys of a job's upload, chunk parts and results file, and the results file's name.
import { partsPrefix, resultsPrefix, uploadsPrefix } from '../../wiring';

export function uploadObjectKey(companyId: string, jobId: string): string {
  return `${uploadsPrefix}${companyId}/${jobId}.csv`;
}

/** The company and job of an upload key (already URL-decoded); undefined for any other key. */
export function parseUploadObjectKey(key: string): { companyId: string; jobId: string } | undefined {
  if (!key.startsWith(uploadsPrefix)) return undefined;
  const match = /^([^/]+)\/([^/]+)\.csv$/.exec(key.slice(uploadsPrefix.length));
  if (!match) return undefined;
  return { companyId: match[1]!, jobId: match[2]! };
}

/**
 * One attempt's part for chunk `index`. Each attempt writes its own key and the job records the key of
 * the attempt that counted, so a slow earlier attempt can never overwrite the part that was counted.
 */
export function partObjectKey(companyId: string, jobId: string, index: number, attempt: string): string {
  return `${partsPrefix}${companyId}/${jobId}/${String(index).padStart(6, '0')}-${attempt}.csv`;
}

/** The duplicate rows the scan found (duplicates.ts), beside the job's parts for the assembly to read. */
export function duplicatePairsKey(companyId: string, jobId: string): string {
  return `${partsPrefix}${companyId}/${jobId}/duplicates.bin`;
}

/** A part rewritten by the assembly so that its duplicates carry their first occurrence's status. */
export function rewrittenPartKey(partKey: string): string {
  return partKey.replace(/\.csv$/, '-deduplicated.csv');
}

/** The row index written beside a part (csv/row-index.ts). */
export function partIndexKey(partKey: string): string {
  return partKey.replace(/\.csv$/, '.index');
}

export function resultObjectKey(companyId: string, jobId: string): string {
  return `${resultsPrefix}${companyId}/${jobId}.csv`;
}

/** The row index of the results file, beside it. */
export function resultIndexKey(companyId: string, jobId: string): string {
  return `${resultsPrefix}${companyId}/${jobId}.index`;
}

/**
 * A filtered or reason-column copy of the results, beside them; `variant` is canonical (statuses in the
 * engine's order, then `reason`), so one filter set is made once whatever order the query named it in.
 */
export function resultVariantKey(companyId: string, jobId: string, variant: string): string {
  return `${resultsPrefix}${companyId}/${jobId}.${variant}.csv`;
}

/** Every object prefix of a job: its upload, its parts, its results and their copies. */
export function jobObjectPrefixes(companyId: string, jobId: string): string[] {
  return [
    `${uploadsPrefix}${companyId}/${jobId}.csv`,
    `${partsPrefix}${companyId}/${jobId}/`,
    `${resultsPrefix}${companyId}/${jobId}.`,
  ];
}

/** fixed contract: `<fileName without .csv>_processed_by_mailvet.csv`, or `<jobId>_processed_by_mailvet.csv`. */
export function resultFileName(jobId: string, fileName: string | undefined): string {
  const base = fileName === undefined ? jobId : fileName.replace(/\.csv$/i, '');
  return `${base}_processed_by_mailvet.csv`;
}

/** A Content-Disposition that carries any file name safely: an ASCII fallback plus the UTF-8 form. */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return ascii === fileName
    ? `attachment; filename="${fileName}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
