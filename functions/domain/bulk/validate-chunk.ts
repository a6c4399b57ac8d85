// One chunk of an upload: read its byte range of the pinned object, classify each row's email cell,
// write the chunk's part of the results file, and add its counts to the job exactly once.
import { chunkBuffers } from '../../buffer-pool';
import { systemClock } from '../../clock';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log';
import { countMetric } from '../../metrics';
import { ObjectChangedError, putObject, readPinnedRange } from '../../store/bucket';
import { recordChunk } from '../../store/jobs/chunk-accounting';
import { acceptsWork, getJobItem, type JobItem } from '../../store/jobs/item';
import { releaseSlot } from '../../store/jobs/slots-and-leases';
import { markFailed } from '../../store/jobs/transitions';
import { sendDelayed } from '../../store/probe-queue';
import { sortedJson } from '../../json';
import { settings } from '../../settings';
import { loadChunkVerdicts } from '../../store/jobs/probe-state';
import type { ChunkMessage, ChunkWork } from './chunk-messages';
import type { ChunkClassification, ChunkVerdict, ClassifyChunk, ProbeTarget } from './classifier';
import { completeIfDone, completeJobById } from './completion';
import { annotateChunk, readChunk } from './csv/annotate';
import type { TextEncoding } from './csv/encoding';
import { indexChunk, rowIndexContentType } from './csv/row-index';
import { partIndexKey, partObjectKey } from './object-keys';
import { handOffToProbes } from './probe-stage';
import { countStatuses, type Statistics } from './statuses';
import { releaseFailedJob } from '../usage';
import { isTestAddress } from '../validation/test-addresses';
import type { MailboxProbe } from '../validation/types';

const takeBuffer = (bytes: number) => chunkBuffers.take(bytes);

const replacedFileError =
  'The uploaded file was replaced by a second upload while it was being processed. Create a new job and upload the file once.';

/** The error a job gets when one of its chunks kept failing (chunks DLQ). */
function chunkFailedError(chunk: Pick<ChunkWork, 'start' | 'end'>): string {
  return `Part of the file (bytes ${chunk.start}-${chunk.end - 1}) could not be validated after several attempts. Create a new job and upload the file again; if it fails again, contact support with this job ID.`;
}

/** The chunk's byte range, read from the exact object version the scan saw. */
function readRange(work: ChunkWork): Promise<Buffer> {
  return readPinnedRange(work.object, work.start, work.end);
}

/** Rows holding a test address (mailvet.test): validated, never counted in usage. */
export function countTestAddresses(emails: readonly (string | undefined)[]): number {
  let count = 0;
  // mentionsTestDomain is a cheap filter on the hot path; isTestAddress decides
  for (let index = 0; index < emails.length; index++) {
    const email = emails[index];
    if (email && mentionsTestDomain(email) && isTestAddress(email)) count++;
  }
  return count;
}

/** `@mailvet.test` in the text, any case: an "@" followed by an "m" is rare enough to look closer. */
function mentionsTestDomain(email: string): boolean {
  for (let at = email.indexOf('@'); at >= 0; at = email.indexOf('@', at + 1)) {
    const next = email.charCodeAt(at + 1) | 0x20;
    if (next === 0x6d /* m */ && TEST_DOMAIN_TEXT.test(email.slice(at, at + 13))) return true;
  }
  return false;
}
const TEST_DOMAIN_TEXT = /^@mailvet\.test$/i;

/** A row without an email cell (blank, or too few columns). */
const blankRow: ChunkVerdict = { status: 'block_bounce_risk', reason: 'blank' };

/** Verdicts for the data rows of a chunk: rows without an email cell are block_bounce_risk. */
export async function classifyRows(
  emails: (string | undefined)[],
  classify: ClassifyChunk,
  companyId: string,
  probed?: ReadonlyMap<string, MailboxProbe>,
  deadlineMs?: number,
  retryTimeouts?: boolean,
): Promise<ChunkClassification> {
  // Every row has a cell (the usual chunk; blank cells are ''): the cells go to the classifier as they
  // are, and the blank ones' verdicts are set here, rather than copying the rows twice around it.
  if (!emails.includes(undefined)) {
    const out = await classify(emails as string[], companyId, probed, deadlineMs, retryTimeouts);
    const verdicts = out.verdicts;
    for (let index = emails.indexOf(''); index >= 0; index = emails.indexOf('', index + 1))
      verdicts[index] = blankRow;
    return out;
  }
  const present: string[] = [];
  for (const email of emails) if (email !== undefined && email !== '') present.push(email);
  const out = await classify(present, companyId, probed, deadlineMs, retryTimeouts);
  let next = 0;
  const verdicts = emails.map((email) =>
    email === undefined || email === '' ? blankRow : out.verdicts[next++]!,
  );
  return { verdicts, probes: out.probes };
}

/** The invocation's clock, as the handler sees it (Lambda's getRemainingTimeInMillis). */
export interface ChunkRunContext {
  /** Milliseconds left in this invocation. */
  remainingMs(): number;
}

/**
 * Time kept after domain resolution for the rest of a chunk: the part's two writes, counting the
 * chunk and, for the last chunk, assembling the results file and completing the job.
 */
export const afterDnsReserveMs = 30_000;

/**
 * The instant a chunk stops waiting for DNS: the invocation's end less afterDnsReserveMs. Domains not
 * resolved by then read some_risk / dns_timeout, so slow name servers never make a chunk time out,
 * be delivered again and, the third time, fail its job.
 */
function dnsDeadlineMs(time: ChunkRunContext, nowMs = systemClock().getTime()): number {
  return nowMs + time.remainingMs() - afterDnsReserveMs;
}

/** What a chunk's rows come to: its part and row index to write and its counts, or rows to probe. */
type ValidatedRows =
  | {
      kind: 'part';
      part: Buffer;
      rowIndex: Buffer;
      record: { counts: Statistics; uncounted: number; rows: number; partBytes: number };
    }
  | { kind: 'probes'; probes: ProbeTarget[]; rows: number }
  /** Some domains timed out in the chunk's first pass: it is validated again later (dnsRetry). */
  | { kind: 'dns_retry' };

/** A verdict that a later round of DNS may change: a timeout, or a lookup the chunk's deadline cut. */
const isDnsTimeout = (v: ChunkVerdict) => v.reason === 'dns_timeout';

/**
 * Reads the chunk's rows, classifies them (DNS up to the invocation's deadline) and annotates and counts
 * them. A function of its own so that the rows (a string each) die when it returns: an async function
 * keeps its locals alive across every await until it ends, and the part's PUTs are awaited for hundreds
 * of milliseconds while the worker's other invocations allocate.
 */
async function validateRows(
  chunk: Buffer,
  work: ChunkWork,
  classify: ClassifyChunk,
  time: ChunkRunContext | undefined,
): Promise<ValidatedRows> {
  // second pass of a chunk whose rows went through the probe stage: its verdicts decide those rows
  // the probe stage's verdicts, stored as the probes it wrote (store/probe-batches.ts keeps strings);
  // read before the rows, which then need not wait for them
  const probed = work.probed
    ? ((await loadChunkVerdicts(work, work.index)) as Map<string, MailboxProbe>)
    : undefined;
  const rows = readChunk(chunk, { ...work, chunkStart: work.start });
  const deadlineMs = time ? dnsDeadlineMs(time) : undefined;
  const { verdicts, probes } = await classifyRows(
    rows.emails,
    classify,
    work.companyId,
    probed,
    deadlineMs,
    work.dnsRetry === true,
  );
  // the first pass only (a probed chunk's domains were settled before its probes)
  if (!work.probed && !work.dnsRetry && verdicts.some(isDnsTimeout)) return { kind: 'dns_retry' };
  if (probes.length > 0) return { kind: 'probes', probes, rows: verdicts.length };
  const part = annotateChunk(chunk, rows, work, verdicts, takeBuffer);
  return {
    kind: 'part',
    part,
    rowIndex: indexChunk(rows, verdicts, work.encoding as TextEncoding),
    record: {
      counts: countStatuses(verdicts),
      uncounted: countTestAddresses(rows.emails),
      rows: verdicts.length,
      partBytes: part.length,
    },
  };
}

/**
 * Primary course: skip a chunk already counted (redelivery); ranged GET; classify (DNS up to the
 * invocation's deadline); put the part under a key of this attempt; count it on the job (a single
 * conditional update: once per chunk index, on a processing job); if it was the last, complete the job.
 * One read of the job item, at the start: the count's update answers with the job as it is after it,
 * which the completion goes on.
 */
export async function processChunkMessage(
  message: ChunkMessage,
  classify: ClassifyChunk,
  log: Logger,
  time?: ChunkRunContext,
): Promise<void> {
  if (message.kind === 'finalize') return completeJobById(message.companyId, message.jobId, log);
  const work = message;
  const chunkLog = log.child({ jobId: work.jobId, companyId: work.companyId, chunk: work.index });
  const job = await getJobItem(work.companyId, work.jobId, true);
  // A completed job may still owe its last steps (slot, webhook) when a crash cut them short.
  if (job?.status === 'completed') return completeIfDone(job, chunkLog);
  if (!acceptsWork(job)) return chunkLog.info('chunk of a job not processing; dropped');
  if (job.doneChunks?.has(work.index)) return completeIfDone(job, chunkLog);

  let chunk: Buffer;
  try {
    chunk = await readRange(work);
  } catch (error) {
    if (!(error instanceof ObjectChangedError)) throw error;
    return failJob(job, replacedFileError, chunkLog);
  }
  const validated = await validateRows(chunk, work, classify, time);
  // the rows are read: the chunk's buffer serves the next chunk
  chunkBuffers.give(chunk);
  if (validated.kind === 'dns_retry') return retryDnsLater(work, chunkLog);
  if (validated.kind === 'probes') {
    // the part is written once every probe batch of the chunk has settled (probe-stage.ts)
    return handOffToProbes(work, validated.rows, validated.probes, chunkLog);
  }
  const { part, record } = validated;
  const partKey = partObjectKey(work.companyId, work.jobId, work.index, randomUUID());
  await Promise.all([
    putObject(partKey, part, 'text/csv'),
    putObject(partIndexKey(partKey), validated.rowIndex, rowIndexContentType),
  ]);
  // the part's buffer serves the next chunk once S3 has answered (a failed PUT leaves it to the garbage
  // collector: its bytes may still be on their way)
  chunkBuffers.give(part);

  const counted = await recordChunk(
    job,
    {
      index: work.index,
      counts: record.counts,
      partBytes: record.partBytes,
      uncounted: record.uncounted,
      partKey,
    },
    systemClock().toISOString(),
  );
  if (!counted) {
    // This attempt's part is nobody's (another delivery counted the chunk first, or the job was
    // deleted while the chunk was validated): the bucket's lifecycle rule for parts removes it.
    chunkLog.info('chunk already counted or job no longer processing');
    return completeJobById(work.companyId, work.jobId, chunkLog);
  }
  countMetric('RowsValidated', record.rows);
  await completeIfDone(counted, chunkLog);
}

/**
 * The chunk again, DNS_RETRY_DELAY_SECONDS from now, for its domains that timed out: a slow zone or a
 * recursive resolver still working on a name answers a later question (docs/bulk.md, "DNS retry round").
 */
async function retryDnsLater(work: ChunkWork, log: Logger): Promise<void> {
  const delaySeconds = settings().DNS_RETRY_DELAY_SECONDS;
  await sendDelayed('chunks', sortedJson({ ...work, dnsRetry: true }), delaySeconds);
  log.info('chunk domains timed out; validated again later', { delaySeconds });
}

async function failJob(
  job: Pick<JobItem, 'companyId' | 'jobId' | 'slot'>,
  error: string,
  log: Logger,
): Promise<void> {
  if (await markFailed(job, error, ['processing'], systemClock().toISOString())) {
    await releaseSlot(job.companyId, job.slot, job.jobId);
    await releaseFailedJob({ ...job, status: 'failed' });
    log.warn('bulk job failed', { error });
  }
}

/** A chunk message that landed in the DLQ: its job cannot complete, so it fails with a reason. */
export async function failJobOfDeadChunk(message: ChunkMessage, log: Logger): Promise<void> {
  const job = await getJobItem(message.companyId, message.jobId, true);
  // A failed job whose reservation a crash left behind gives it back now.
  if (job?.status === 'failed') await releaseFailedJob(job);
  if (!acceptsWork(job)) return;
  if (message.kind === 'chunk') {
    // Counted after all (its last receive succeeded late): nothing to fail.
    if (job.doneChunks?.has(message.index)) return;
    return failJob(job, chunkFailedError(message), log.child({ jobId: job.jobId, chunk: message.index }));
  }
  return failJob(
    job,
    'The results file could not be assembled. Create a new job and upload the file again.',
    log,
  );
}
