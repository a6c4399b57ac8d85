// An upload arrived: move its job to processing exactly once, scan the file in one streaming pass and
// fan its chunks out to the chunks queue.
import { systemClock, systemStopwatch } from '../../clock';
import { logger, type Logger } from '../../log';
import type { Readable } from 'node:stream';
import { putObject, readObject, type ObjectRead } from '../../store/bucket';
import { recordDuplicates } from '../../store/jobs/duplicates';
import { sendMessage, sendMessageBatch } from '../../store/queues';
import { settings } from '../../settings';
import type { ChunkMessage } from './chunk-messages';
import type { Dialect } from './csv/dialect';
import { NotCsvError } from './csv/not-text';
import { scanCsv, type ChunkRange, type ScanResult } from './csv/scan';
import { allChunksDone, recordScan } from '../../store/jobs/chunk-accounting';
import { getJobItem, type JobItem, type ObjectPin } from '../../store/jobs/item';
import { holdSlot, releaseSlot, takeScanLease } from '../../store/jobs/slots-and-leases';
import { markFailed, markProcessing, markStartFailed } from '../../store/jobs/transitions';
import { maxFileBytes, processingDeadlineSeconds, scanLeaseSeconds } from './limits';
import { keepScanLease, takeOverScan } from './scan-lease';
import { duplicatePairsKey, parseUploadObjectKey } from './object-keys';
import { releaseFailedJob, reserveForJob } from '../usage';
import {
  completeEstimate,
  estimateSampleOptions,
  finishEstimate,
  isEstimateJob,
} from './estimate/complete-estimate';
import { EstimateTimeline } from './estimate/timeline';

/** One ObjectCreated record, key already URL-decoded. */
export interface UploadedObject {
  key: string;
  size: number;
}

const tooLargeError = 'File exceeds the 100 MB limit';
const emptyFileError =
  'The file has no data rows. Upload a CSV with one email address per row (a header row is optional).';
const lateUploadError =
  'The upload finished as its URL expired and the job could not be started. Create a new job and upload the file again.';

/**
 * Primary course: check the job awaits this upload; keep its slot for the processing deadline; move it
 * to processing (the conditional write makes duplicate events no-ops); scan and fan out; record the
 * chunk count and the email total. An estimate reads and samples its upload meanwhile, then validates
 * the sample and completes.
 */
export async function startProcessing(upload: UploadedObject, log: Logger = logger): Promise<void> {
  const invokedAt = systemStopwatch();
  const ids = parseUploadObjectKey(upload.key);
  if (!ids) return log.warn('upload key is not a job upload; ignored', { key: upload.key });
  const job = await getJobItem(ids.companyId, ids.jobId, true);
  if (!job) return log.warn('upload for an unknown job; ignored', ids);
  const jobLog = log.child({ jobId: job.jobId, companyId: job.companyId });
  const now = systemClock().getTime();
  // An estimate's steps are timed (its completion log line says where its time went).
  const timeline = isEstimateJob(job) ? new EstimateTimeline(job.jobId, invokedAt) : undefined;

  let leaseUntilMs: number | undefined;
  let early: UploadSample | undefined;
  let scanning: Promise<void> | undefined;
  if (job.status === 'awaiting_upload') {
    if (upload.size > maxFileBytes) return failBeforeStart(job, tooLargeError, jobLog);
    // The upload is read and scanned while the writes below start the job: the scan is on the critical
    // path, those writes need not be. An estimate's scan sends and writes nothing; a job's sends and
    // writes nothing before `started` says this run started the job, and ends its read if it did not.
    let decide!: (started: boolean) => void;
    const started = new Promise<boolean>((resolve) => (decide = resolve));
    if (isEstimateJob(job)) early = sampleUpload(job, upload.key, timeline);
    else {
      scanning = scanAndFanOut(job, upload.key, jobLog, started);
      // awaited below; a failure meanwhile is not an unhandled rejection
      scanning.catch(() => undefined);
    }
    leaseUntilMs = await startJob(job, now, jobLog).catch(async (error: unknown) => {
      early?.cancel();
      decide(false);
      await scanning?.catch(() => undefined);
      throw error;
    });
    decide(leaseUntilMs !== undefined);
    if (leaseUntilMs === undefined) {
      early?.cancel();
      return scanning?.catch(() => undefined);
    }
  } else if (job.status === 'processing' && job.chunkCount === undefined) {
    // A scan that crashed before recording its outcome: take it over once its lease runs out.
    leaseUntilMs = await takeOverScan(job);
    if (leaseUntilMs === undefined) return jobLog.info('upload event for a job being scanned; ignored');
  } else if (job.status === 'processing' && allChunksDone(job)) {
    // A redelivered event of a scan that recorded its outcome after every chunk was counted and stopped
    // (a crash) before its finalize message: nothing else would complete the job.
    jobLog.info('upload event for a job whose chunks are all done; finalizing');
    await sendFinalize(job);
    return;
  } else if (job.status === 'completed' && isEstimateJob(job)) {
    // A redelivered event of an estimate that completed: finish what a crash may have cut short.
    return finishEstimate(job, jobLog);
  } else {
    return jobLog.info('upload event for a job not awaiting one; ignored', { status: job.status });
  }
  timeline?.mark('processing');

  const lease = keepScanLease(job, leaseUntilMs, jobLog);
  try {
    if (isEstimateJob(job))
      await sampleAndComplete(job, early ?? sampleUpload(job, upload.key, timeline), jobLog, timeline);
    else await (scanning ?? scanAndFanOut(job, upload.key, jobLog));
  } catch (error) {
    lease.stop();
    // Give the lease back so a retried event can scan again at once.
    await takeScanLease(job, Number.MAX_SAFE_INTEGER, 0).catch(() => undefined);
    throw error;
  } finally {
    lease.stop();
  }
}

/**
 * Keeps the job's slot for the processing deadline and moves it to processing; its scan lease's end,
 * or undefined when it must not be scanned (the upload came too late, or a duplicate event).
 */
async function startJob(job: JobItem, now: number, log: Logger): Promise<number | undefined> {
  const deadlineAtMs = now + processingDeadlineSeconds * 1000;
  if (!(await holdSlot(job.companyId, job.slot, job.jobId, deadlineAtMs))) {
    await failBeforeStart(job, lateUploadError, log);
    return undefined;
  }
  const leaseUntilMs = now + scanLeaseSeconds * 1000;
  const started = await markProcessing(job, {
    now: new Date(now).toISOString(),
    deadlineAtMs,
    scanLeaseUntilMs: leaseUntilMs,
  });
  if (started) return leaseUntilMs;
  log.info('duplicate upload event; job already started');
  return undefined;
}

const startFailedError =
  'The uploaded file could not be read and split after several attempts. Create a new job and upload the file again; if it happens again, contact support with this job ID.';

/**
 * startProcessing's on-failure destination: its retries are spent, so the job fails now with a reason
 * instead of waiting for the two-hour processing deadline.
 */
export async function failUnstartedJob(
  upload: Pick<UploadedObject, 'key'>,
  log: Logger = logger,
): Promise<void> {
  const ids = parseUploadObjectKey(upload.key);
  if (!ids) return log.warn('failed start of a key that is not a job upload; ignored', { key: upload.key });
  const job = await getJobItem(ids.companyId, ids.jobId, true);
  if (!job) return;
  if (await markStartFailed(job, startFailedError, systemClock().toISOString())) {
    await releaseSlot(job.companyId, job.slot, job.jobId);
    log.warn('bulk job failed: its start kept failing', { jobId: job.jobId, companyId: job.companyId });
  }
}

async function failBeforeStart(job: JobItem, error: string, log: Logger): Promise<void> {
  if (await markFailed(job, error, ['awaiting_upload'], systemClock().toISOString())) {
    await releaseSlot(job.companyId, job.slot, job.jobId);
    log.info('job failed before processing', { error });
  }
}

async function failDuringScan(job: JobItem, error: string, log: Logger): Promise<void> {
  if (await markFailed(job, error, ['processing'], systemClock().toISOString())) {
    await releaseSlot(job.companyId, job.slot, job.jobId);
    await releaseFailedJob({ ...job, status: 'failed' });
    log.info('job failed during the scan', { error });
  }
}

/** An estimate's upload, read and sampled; `cancel` drops it (the job did not start). */
interface UploadSample {
  outcome: Promise<{ pin: ObjectPin; scan: ScanResult } | { error: string }>;
  cancel(): void;
}

/** Reads and samples an estimate's upload: no write, no message, so it may start before the job does. */
function sampleUpload(job: JobItem, key: string, timeline?: EstimateTimeline): UploadSample {
  let body: Readable | undefined;
  let cancelled = false;
  const read = async () => {
    const object = await readObject(key);
    body = object.body;
    if (cancelled) body.destroy();
    timeline?.mark('opened');
    const pin = pinOf(key, object);
    if (pin.size > maxFileBytes) {
      object.body.destroy();
      return { error: tooLargeError };
    }
    try {
      const scan = await scanCsv(object.body as AsyncIterable<Uint8Array>, {
        emailColumn: job.emailColumn,
        chunkSizeBytes: settings().CHUNK_SIZE_BYTES,
        fileBytes: pin.size,
        onChunks: () => undefined,
        sample: estimateSampleOptions(job),
      });
      timeline?.mark('scanned');
      return { pin, scan };
    } catch (error) {
      if (!(error instanceof NotCsvError)) throw error;
      object.body.destroy();
      return { error: error.message };
    }
  };
  const outcome = read();
  // handled here too: a failure while the job is being started is not an unhandled rejection
  outcome.catch(() => undefined);
  return {
    outcome,
    cancel: () => {
      cancelled = true;
      body?.destroy();
    },
  };
}

/** An estimate sends no chunks: its sample, drawn by the scan, is validated right here. */
async function sampleAndComplete(
  job: JobItem & { estimate: true },
  sample: UploadSample,
  log: Logger,
  timeline?: EstimateTimeline,
): Promise<void> {
  const outcome = await sample.outcome;
  if ('error' in outcome) return failDuringScan(job, outcome.error, log);
  const { pin, scan } = outcome;
  if (scan.dataRows === 0) return failDuringScan(job, emptyFileError, log);
  const sampled = { pin, dialect: scan.dialect, rows: scan.dataRows, sample: scan.sample ?? [] };
  return completeEstimate(job, sampled, log, {
    fail: (error) => failDuringScan(job, error, log),
    timeline,
  });
}

/** The version (or ETag) read here is the one every chunk reads: a second PUT cannot mix two files. */
function pinOf(key: string, object: ObjectRead): ObjectPin {
  return {
    key,
    etag: object.etag,
    size: object.size,
    ...(object.versionId ? { versionId: object.versionId } : {}),
  };
}

/**
 * Scans the upload and sends its chunks. `started` resolves once the job's start is decided: nothing is
 * sent or written before it is true, and the read ends when it is false (this run did not start the job).
 */
async function scanAndFanOut(
  job: JobItem,
  key: string,
  log: Logger,
  started: Promise<boolean> = Promise.resolve(true),
): Promise<void> {
  const object = await readObject(key);
  const notStarted = started.then(
    (ok) => !ok,
    () => true,
  );
  void notStarted.then((stop) => stop && object.body.destroy());
  const pin = pinOf(key, object);
  if (pin.size > maxFileBytes) {
    object.body.destroy();
    if (await notStarted) return;
    return failDuringScan(job, tooLargeError, log);
  }
  const sender = new ChunkSender(job, pin, started);
  let scan: ScanResult;
  try {
    scan = await scanCsv(object.body as AsyncIterable<Uint8Array>, {
      emailColumn: job.emailColumn,
      chunkSizeBytes: settings().CHUNK_SIZE_BYTES,
      findDuplicates: true,
      fileBytes: pin.size,
      onChunks: (chunks, dialect) => sender.add(chunks, dialect),
    });
  } catch (error) {
    // the read was ended on purpose: the job is another run's (or its start failed)
    if (await notStarted) return;
    if (!(error instanceof NotCsvError)) throw error;
    object.body.destroy();
    // Chunks already sent (a NUL byte found late) find the job failed and are dropped; the job never
    // records a chunk count, so it cannot complete.
    return failDuringScan(job, error.message, log);
  }
  if (await notStarted) return;
  if (scan.dataRows === 0) return failDuringScan(job, emptyFileError, log);
  await sender.finish();
  // Duplicates are known before any chunk can be the last: the assembly finds them on the job.
  const duplicates = scan.duplicates;
  if (duplicates && duplicates.count > 0) {
    await putObject(
      duplicatePairsKey(job.companyId, job.jobId),
      duplicates.pairs(),
      'application/octet-stream',
    );
    await recordDuplicates(job, {
      duplicateEmails: duplicates.count,
      duplicateTestEmails: duplicates.testAddresses,
    });
  }
  // The row count is known: hold that many validations (duplicates never count), or fail the job with
  // nothing consumed.
  const billedDuplicates = duplicates ? duplicates.count - duplicates.testAddresses : 0;
  const reservation = await reserveForJob(job, scan.dataRows - billedDuplicates);
  if (!reservation.ok) return failDuringScan(job, reservation.error, log);
  const recorded = await recordScan(job, {
    pin,
    dialect: scan.dialect,
    chunkCount: scan.chunks,
    totalEmails: scan.dataRows,
  });
  // The job failed while the scan ran (its deadline): its release may have run before this reservation.
  if (!recorded) await releaseFailedJob((await getJobItem(job.companyId, job.jobId, true)) ?? job);
  log.info('upload scanned', {
    bytes: scan.bytes,
    rows: scan.dataRows,
    duplicates: duplicates?.count ?? 0,
    chunks: scan.chunks,
    ...scan.dialect,
  });
  // Every chunk may have finished before the count was known: then nobody else completes the job.
  if (recorded && allChunksDone(recorded)) await sendFinalize(job);
}

function sendFinalize(job: JobItem): Promise<void> {
  const message: ChunkMessage = { kind: 'finalize', companyId: job.companyId, jobId: job.jobId };
  return sendMessage('chunks', message);
}

/** Most SendMessageBatch calls in flight while the scan goes on. */
const maxBatchesInFlight = 4;

/**
 * Sends chunk descriptors while the scan is still running, so validators start on the first chunks at
 * once. Nothing is sent before a data row has been seen: a file without data rows fans nothing out.
 */
class ChunkSender {
  private pending: ChunkMessage[] = [];
  private sawData = false;
  /** Full batches waiting for a free sender. */
  private readonly queued: ChunkMessage[][] = [];
  private active = 0;
  private failure: unknown;
  private drained: (() => void) | undefined;
  /** True once the job's start is known to be this run's: nothing is sent before. */
  private open = false;

  constructor(
    private readonly job: JobItem,
    private readonly pin: ObjectPin,
    started: Promise<boolean>,
  ) {
    void started.then(
      (ok) => {
        this.open = ok;
        this.pump();
      },
      () => undefined,
    );
  }

  add(chunks: ChunkRange[], dialect: Dialect): void {
    for (const chunk of chunks) {
      if (chunk.dataRows > 0) this.sawData = true;
      this.pending.push({
        kind: 'chunk',
        companyId: this.job.companyId,
        jobId: this.job.jobId,
        index: chunk.index,
        start: chunk.start,
        end: chunk.end,
        dataRows: chunk.dataRows,
        headerRow: chunk.headerRow,
        delimiter: dialect.delimiter,
        encoding: dialect.encoding,
        ...(dialect.headerStart === undefined ? {} : { headerStart: dialect.headerStart }),
        dataStart: dialect.dataStart,
        emailColumn: this.job.emailColumn,
        object: this.pin,
      });
    }
    if (!this.sawData) return;
    while (this.pending.length >= 10) this.queued.push(this.pending.splice(0, 10));
    // While nothing is on its way, send what there is: the first chunks start at once.
    if (this.active === 0 && this.queued.length === 0 && this.pending.length > 0)
      this.queued.push(this.pending.splice(0));
    this.pump();
  }

  /** Sends what is left; called once the job is known to be this run's. */
  async finish(): Promise<void> {
    this.open = true;
    while (this.pending.length > 0) this.queued.push(this.pending.splice(0, 10));
    this.pump();
    if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    if (this.failure) throw this.failure;
  }

  private pump(): void {
    while (this.open && this.active < maxBatchesInFlight && this.queued.length > 0) {
      const batch = this.queued.shift()!;
      this.active++;
      sendBatchWithRetry(batch)
        .catch((error: unknown) => {
          this.failure ??= error;
        })
        .finally(() => {
          this.active--;
          this.pump();
          if (this.active === 0 && this.queued.length === 0) this.drained?.();
        });
    }
  }
}

function sendBatchWithRetry(batch: ChunkMessage[]): Promise<void> {
  return sendMessageBatch(
    'chunks',
    batch.map((message) => ({ id: `c${(message as { index: number }).index}`, message })),
  );
}
