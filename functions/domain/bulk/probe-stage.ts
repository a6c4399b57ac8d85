// The probe stage of a bulk job (docs/bulk.md, "Probe stage"):
//   chunk -> rows a probe could change, grouped by MX host into batches -> probes queue
//   probeMailboxes: cache, session lease, RCPT budget, one SMTP session for many recipients;
//     greylisted addresses come back after PROBE_GREYLIST_DELAY_SECONDS (SQS DelaySeconds), unfinished
//     work is handed back as the same batch; a finished batch stores its verdicts and settles once
//   last batch of a chunk settled -> the chunk message again (probed) -> part written, chunk counted
// Counts change only in the two conditional writes (settleProbeBatch, recordChunk), so redelivered and
// handed-back messages never count twice.
import { systemClock, systemStopwatch, type Clock } from '../../clock';
import { sortedJson } from '../../json';
import type { Logger } from '../../log';
import { countMetric } from '../../metrics';
import { settings, type Settings } from '../../settings';
import { politenessFromSettings, releaseAfterGrace } from '../probe/polite-session';
import { tableProbeVerdicts } from '../../store/probe-verdicts';
import { sendDelayed, sendProbeBatches } from '../../store/probe-queue';
import type { QueueName } from '../../wiring';
import { rcptPacer, type Politeness } from '../probe/politeness';
import { proxyPoolFor } from '../probe/proxy-pool';
import { probeBatch, type BatchSessionOptions, defaultBatchSessionOptions } from '../probe/smtp-session';
import { DynamoProbeVerdictCache, type ProbeVerdictCache } from '../probe/verdict-cache';
import type { MailboxProbe } from '../validation/types';
import type { ChunkWork } from './chunk-messages';
import type { ProbeTarget } from './classifier';
import type { JobItem } from '../../store/jobs/item';
import { jobRetentionSeconds } from './limits';
import { probeBatchId, type ProbeMessage } from './probe-messages';
import {
  recordBatchProgress,
  recordProbeFinishExpected,
  recordProbeHandoff,
  settleProbeBatch,
} from '../../store/jobs/probe-accounting';
import {
  chunkProbesSettled,
  readChunkProbeState,
  readJobAndBatch,
  type BatchState,
  type ChunkProbeState,
  type Job,
  type ProbeJobView,
} from '../../store/jobs/probe-state';

export interface ProbeStageDeps {
  politeness: Politeness;
  cache: ProbeVerdictCache;
  session: BatchSessionOptions;
  greylistRetries: number;
  greylistDelaySeconds: number;
  /** M: RCPT per second per MX host (SMTP_RCPT_PER_SECOND_PER_HOST), for the waits at a busy host. */
  rcptPerSecondPerHost: number;
  clock: Clock;
  /** Sends a message to a queue, visible after delaySeconds. */
  send(queue: QueueName, body: string, delaySeconds?: number): Promise<void>;
}

/** Shortest delay of a batch handed back because every session slot at its host was taken. */
export const busyHostDelaySeconds = 2;
/** Longest such delay: a slot freed meanwhile is found within this long. */
const maxBusyHostDelaySeconds = 30;
/**
 * A batch stops waiting this long before its job's processing deadline: what it could not probe by then
 * settles as not_attempted (its DNS verdict), leaving the chunks and the assembly time to finish.
 */
const probeSettleReserveMs = 10 * 60_000;
/** The expected finish time is written again only when it moved by more than this. */
const finishEstimateSlackMs = 5_000;

/** The dependencies from the settings; cheap, built per invocation so they follow the current clients. */
export function probeStageDeps(s: Settings = settings()): ProbeStageDeps {
  return {
    politeness: politenessFromSettings(s),
    cache: new DynamoProbeVerdictCache(tableProbeVerdicts(), s.PROBE_CACHE_DAYS),
    clock: systemClock,
    session: {
      ...defaultBatchSessionOptions,
      port: s.SMTP_PORT,
      timeoutMs: s.SMTP_TIMEOUT_MS,
      heloName: s.SMTP_HELO_NAME,
      mailFrom: s.SMTP_MAIL_FROM,
      proxies: proxyPoolFor(s.SMTP_SOCKS_PROXY),
      maxRecipientsPerSession: s.SMTP_RECIPIENTS_PER_SESSION,
    },
    greylistRetries: s.PROBE_GREYLIST_RETRIES,
    greylistDelaySeconds: s.PROBE_GREYLIST_DELAY_SECONDS,
    rcptPerSecondPerHost: s.SMTP_RCPT_PER_SECOND_PER_HOST,
    send: sendDelayed,
  };
}

/** Groups targets by MX host into batches of at most batchSize distinct addresses, deterministically. */
export function planProbeBatches(targets: readonly ProbeTarget[], batchSize: number): ProbeTarget[][] {
  const byHost = new Map<string, Map<string, ProbeTarget>>();
  for (const t of targets) {
    const host = byHost.get(t.host) ?? new Map<string, ProbeTarget>();
    byHost.set(t.host, host);
    host.set(t.email.toLowerCase(), t);
  }
  const batches: ProbeTarget[][] = [];
  for (const host of [...byHost.keys()].sort()) {
    const list = [...byHost.get(host)!.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, t]) => t);
    for (let i = 0; i < list.length; i += batchSize) batches.push(list.slice(i, i + batchSize));
  }
  return batches;
}

/** A chunk of `rows` data rows with rows to probe: count them for progress (once), queue its batches. */
export async function handOffToProbes(
  work: ChunkWork,
  rows: number,
  targets: ProbeTarget[],
  log: Logger,
): Promise<void> {
  const batches = planProbeBatches(targets, settings().PROBE_BATCH_SIZE);
  const emails = batches.reduce((n, b) => n + b.length, 0);
  await recordProbeHandoff(work, work.index, rows, emails);
  const messages = batches.map((batch, n): ProbeMessage => {
    const emailsOf = batch.map((t) => t.email.toLowerCase());
    return {
      kind: 'probe',
      chunk: { ...work, probed: undefined },
      batch: n,
      batches: batches.length,
      host: batch[0]!.host,
      addresses: batch[0]!.addresses,
      size: emailsOf.length,
      todo: emailsOf,
      done: {},
      greylistRounds: 0,
      handBacks: 0,
    };
  });
  // re-sent in full on a redelivered chunk: settling is per batch id, so duplicates count nothing
  await sendProbeBatches(messages.map((m) => sortedJson(m)));
  log.info('chunk handed to the probe stage', { batches: batches.length, emails });
}

export interface ProbeRunContext {
  /** Milliseconds left in this invocation. */
  remainingMs(): number;
}

/** The instant after which a batch of the job stops waiting and settles with what it has. */
function probeCutoffMs(job: Pick<JobItem, 'deadlineAtMs'>): number {
  return job.deadlineAtMs === undefined ? Number.POSITIVE_INFINITY : job.deadlineAtMs - probeSettleReserveMs;
}

/**
 * Primary course: skip a settled batch; take cached verdicts; past the job's probe cutoff, settle with
 * the rest not_attempted; hold a session slot at the host (none free: wait as long as the host's RCPT
 * schedule needs, and show when probing should end); probe the rest within the RCPT budget and the time
 * left; hand back greylisted (after a delay) and unfinished addresses as the same batch; or settle it:
 * store its verdicts, count it once, and when it was the last of its chunk, send the chunk on.
 */
export async function processProbeMessage(
  message: ProbeMessage,
  deps: ProbeStageDeps,
  ctx: ProbeRunContext,
  log: Logger,
): Promise<void> {
  const id = probeBatchId(message);
  const batchLog = log.child({ jobId: message.chunk.jobId, batch: id, host: message.host });
  // the message's one read of its job (the batch's own item comes in the same request)
  const { job, batch } = await readJobAndBatch(message.chunk, message.chunk.index, message.batch);
  if (!job || job.status !== 'processing')
    return batchLog.info('probe batch of a job not processing; dropped');
  if (batch.settled) return continueChunk(job, message, deps);
  const read = { job, batch };

  batchLog.debug('probe batch started', { todo: message.todo.length, handBacks: message.handBacks });
  const done = { ...message.done };
  const cached = new Set(message.cached ?? []);
  let todo = message.todo.filter((e) => done[e] === undefined);
  // a batch handed back looked its addresses up in its first round: what it has left was not cached
  // then (a verdict another job stored meanwhile costs one probe more, never a wrong one)
  if (todo.length > 0 && message.handBacks === 0) {
    for (const [email, probe] of await deps.cache.get(todo)) {
      done[email] = probe;
      cached.add(email);
    }
    todo = todo.filter((e) => done[e] === undefined);
  }
  if (todo.length === 0) return settle(read, message, done, cached, deps, batchLog);
  const cutoffMs = probeCutoffMs(job);
  if (deps.clock().getTime() >= cutoffMs) {
    // never silently: these addresses keep their DNS verdict and the job counts them as unprobed
    batchLog.warn('probe batch reached its job deadline; the rest is not probed', { unprobed: todo.length });
    for (const email of todo) done[email] = 'not_attempted';
    return settle(read, message, done, cached, deps, batchLog);
  }

  // leave room for one more step at every stage of a session (a pipelined reply may take three) before
  // the invocation ends
  const reserveMs = 4 * deps.session.timeoutMs + 2000;
  const shouldStop = () => ctx.remainingMs() < reserveMs;
  const startedAt = systemStopwatch();
  const lease = await deps.politeness.acquireSession(message.host);
  if (!lease) {
    await showExpectedFinish(message.chunk, job, deps.rcptPerSecondPerHost, cutoffMs, deps.clock().getTime());
    return handBack(
      read,
      message,
      done,
      cached,
      todo,
      false,
      busyHostDelay(todo.length, deps, cutoffMs),
      deps,
    );
  }
  let outcome;
  try {
    // what the host taught earlier (hostLimits was read for the lease: no call more)
    const limits = await deps.politeness.hostLimits(message.host);
    outcome = await probeBatch(
      message.addresses,
      todo,
      {
        ...deps.session,
        maxRecipientsPerSession: Math.min(
          deps.session.maxRecipientsPerSession,
          limits.rcptPerSession ?? Number.POSITIVE_INFINITY,
        ),
      },
      {
        shouldStop,
        rcptWindow: rcptPacer(deps.politeness, message.host, todo.length, shouldStop, deps.clock),
      },
      // the MX host's name: TLS SNI when the server speaks STARTTLS
      message.host,
    );
  } finally {
    await releaseAfterGrace(deps.politeness, lease);
  }
  await deps.politeness.learn(message.host, outcome.learned);
  batchLog.debug('probe batch session done', {
    ms: Math.round(systemStopwatch() - startedAt),
    sessions: outcome.sessions,
    answered: outcome.outcomes.size,
  });
  countHostHealth(outcome.outcomes, batchLog);
  const greylisted: string[] = [];
  const lastRound = message.greylistRounds >= deps.greylistRetries;
  for (const [email, probe] of outcome.outcomes) {
    if (probe === 'greylisted' && !lastRound) greylisted.push(email);
    else done[email] = probe;
  }
  const left = [...outcome.unfinished, ...greylisted];
  if (left.length === 0) return settle(read, message, done, cached, deps, batchLog);
  batchLog.info('probe batch handed back', {
    unfinished: outcome.unfinished.length,
    greylisted: greylisted.length,
  });
  return handBack(
    read,
    message,
    done,
    cached,
    left,
    greylisted.length > 0,
    greylisted.length > 0 ? deps.greylistDelaySeconds : 0,
    deps,
  );
}

/**
 * The probing IP's health, one data point per session run: the host answered, and whether it refused us
 * ("about us, not the mailbox": a listed IP, a policy). The stack alarms on the hourly share refusing.
 */
function countHostHealth(outcomes: ReadonlyMap<string, MailboxProbe>, log: Logger): void {
  if (outcomes.size === 0) return;
  countMetric('ProbedHosts');
  let blocked = 0;
  for (const probe of outcomes.values()) if (probe === 'blocked') blocked++;
  if (blocked === 0) return;
  countMetric('RefusingHosts');
  log.warn('MX host refused our probes (about us, not the mailbox); those addresses keep their DNS verdict', {
    blocked,
    answered: outcomes.size,
  });
}

/**
 * How long a batch waits for a free session slot: about as long as the host's RCPT schedule needs for a
 * batch of its size (a session holding the slot sends at most M RCPT a second), never past the cutoff.
 */
function busyHostDelay(
  todo: number,
  deps: Pick<ProbeStageDeps, 'rcptPerSecondPerHost' | 'clock'>,
  cutoffMs: number,
) {
  const needed = Math.ceil(todo / deps.rcptPerSecondPerHost);
  const delay = Math.min(maxBusyHostDelaySeconds, Math.max(busyHostDelaySeconds, needed));
  return Math.max(0, Math.min(delay, Math.ceil((cutoffMs - deps.clock().getTime()) / 1000)));
}

/**
 * While batches wait for a busy host, the job shows when probing should end: its addresses still to
 * probe at M RCPT a second (as if they all shared one host: an upper bound), never past the cutoff.
 */
async function showExpectedFinish(
  keys: Job,
  job: ProbeJobView,
  rcptPerSecond: number,
  cutoffMs: number,
  nowMs: number,
): Promise<void> {
  let left = (job.probeEmails ?? 0) - (job.probedEmails ?? 0);
  for (const done of Object.values(job.probeProgress ?? {})) left -= done;
  const expected = Math.min(cutoffMs, nowMs + (Math.max(0, left) / rcptPerSecond) * 1000);
  const shown = job.probeFinishExpectedAtMs;
  if (shown !== undefined && Math.abs(shown - expected) <= finishEstimateSlackMs) return;
  await recordProbeFinishExpected(keys, Math.round(expected));
}

/** What a probe message read at its start: its job and its batch's item (readJobAndBatch). */
interface MessageRead {
  job: ProbeJobView;
  batch: BatchState;
}

/**
 * The same batch, with what is left, back on the probes queue; the verdicts it has so far show in the
 * job's progress at once (a greylisted address may keep the batch from settling for minutes).
 */
async function handBack(
  read: MessageRead,
  message: ProbeMessage,
  done: Record<string, MailboxProbe>,
  cached: ReadonlySet<string>,
  todo: string[],
  greylistRound: boolean,
  delaySeconds: number,
  deps: ProbeStageDeps,
): Promise<void> {
  const verdicts = Object.keys(done).length;
  if (verdicts > Object.keys(message.done).length)
    await recordBatchProgress(
      message.chunk,
      message.chunk.index,
      message.batch,
      verdicts,
      jobRetentionSeconds,
      read,
    );
  const next: ProbeMessage = {
    ...message,
    done,
    cached: [...cached],
    todo,
    greylistRounds: message.greylistRounds + (greylistRound ? 1 : 0),
    handBacks: message.handBacks + 1,
  };
  await deps.send('probes', sortedJson(next), Math.min(900, delaySeconds));
}

/**
 * Stores the batch's verdicts (in the verdict cache those it probed, once for all its rounds: a batch
 * of one domain costs one write per cache shard), counts the batch once, and moves its chunk on when
 * it was the last.
 */
async function settle(
  read: MessageRead,
  message: ProbeMessage,
  done: Record<string, MailboxProbe>,
  cached: ReadonlySet<string>,
  deps: Pick<ProbeStageDeps, 'send' | 'cache'>,
  log: Logger,
): Promise<void> {
  // a verdict it did not find (not_attempted) is not one to reuse
  await deps.cache.put(
    new Map(Object.entries(done).filter(([email, probe]) => !cached.has(email) && probe !== 'not_attempted')),
  );
  const outcomes = Object.values(done);
  const counts = {
    unprobed: outcomes.filter((p) => p === 'not_attempted').length,
    blocked: outcomes.filter((p) => p === 'blocked').length,
  };
  const job = message.chunk;
  const settled = await settleProbeBatch(
    job,
    job.index,
    message.batch,
    message.size,
    done,
    jobRetentionSeconds,
    counts,
    { batch: read.batch, batches: message.batches, legacySettled: read.job.settledProbes !== undefined },
  );
  if (settled.counted) {
    log.info('probe batch settled', { verdicts: outcomes.length, ...counts });
    if (settled.lastOfChunk) await sendChunkOn(message, deps);
    return;
  }
  log.info('probe batch not counted', { why: settled.why });
  // settled before (a redelivery) or meanwhile: the chunk may still be owed its next step
  const current = await readChunkProbeState(job, job.index);
  if (current) await continueChunk(current, message, deps);
}

/**
 * Once every batch of the chunk is settled, the chunk message goes again to write its part: sent by the
 * batch whose settle was counted last (and again by its redelivery; recordChunk counts the chunk once,
 * and a chunk already counted is dropped: a message's own read of the job leaves doneChunks out).
 */
async function continueChunk(
  job: ChunkProbeState,
  message: ProbeMessage,
  deps: Pick<ProbeStageDeps, 'send'>,
): Promise<void> {
  if (job.status !== 'processing' || job.doneChunks?.has(message.chunk.index)) return;
  if (!chunkProbesSettled(job, message.chunk.index, message.batches, message.batch)) return;
  await sendChunkOn(message, deps);
}

/** The chunk message again, probed: it writes its part with the verdicts of its batches. */
async function sendChunkOn(message: ProbeMessage, deps: Pick<ProbeStageDeps, 'send'>): Promise<void> {
  await deps.send('chunks', sortedJson({ ...message.chunk, probed: true }));
}

/**
 * A probe batch from the DLQ: settle with the verdicts it has, the rest not_attempted (counted on the
 * job), so its job can still complete.
 */
export async function settleDeadProbeBatch(message: ProbeMessage, log: Logger): Promise<void> {
  const read = await readJobAndBatch(message.chunk, message.chunk.index, message.batch);
  if (!read.job || read.job.status !== 'processing') return;
  const done: Record<string, MailboxProbe> = { ...message.done };
  for (const email of message.todo) done[email] ??= 'not_attempted';
  log.warn('probe batch kept failing; its addresses keep their DNS verdicts', {
    batch: probeBatchId(message),
    unprobed: Object.values(done).filter((p) => p === 'not_attempted').length,
  });
  await settle(
    { job: read.job, batch: read.batch },
    message,
    done,
    new Set(message.cached ?? []),
    probeStageDeps(),
    log,
  );
}
