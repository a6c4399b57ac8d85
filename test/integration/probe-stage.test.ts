// The probe worker on DynamoDB Local against a fixture MX server, with the queue replaced by a recorder:
// settling counts a batch once however often it is delivered, an invocation near its deadline hands
// the batch back untouched, a host with every session slot taken gets the batch back later, and
// greylisted addresses come back after the greylist delay, then settle.
import { systemClock } from '../../functions/clock';
import { resetServiceClients } from '../../functions/clients/reset';
import { resetSettings } from '../../functions/settings';
import { recordChunk, recordScan } from '../../functions/store/jobs/chunk-accounting';
import { getJobItem } from '../../functions/store/jobs/item';
import { putProcessingJob } from '../helpers/jobs';
import { jobView } from '../../functions/domain/bulk/job-view';
import type { ProbeMessage } from '../../functions/domain/bulk/probe-messages';
import {
  busyHostDelaySeconds,
  planProbeBatches,
  processProbeMessage,
  type ProbeStageDeps,
} from '../../functions/domain/bulk/probe-stage';
import {
  recordBatchProgress,
  recordProbeHandoff,
  settleProbeBatch,
} from '../../functions/store/jobs/probe-accounting';
import { loadChunkVerdicts, readBatch, type JobProbeState } from '../../functions/store/jobs/probe-state';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb } from '../../functions/clients/dynamodb';
import { jobKey } from '../../functions/store/keys';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import { MemoryPoliteness } from '../../functions/domain/probe/politeness';
import { defaultBatchSessionOptions } from '../../functions/domain/probe/smtp-session';
import { MemoryProbeVerdictCache, type ProbeVerdictCache } from '../../functions/domain/probe/verdict-cache';
import { Logger, logger } from '../../functions/log';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb';
import { mailboxRule, startBatchSmtp, type BatchSmtp } from '../unit/validation/fixtures/batch-smtp';

let dynamo: DynamoDbLocal;
let smtp: BatchSmtp;
const companyId = 'c-probe';
const log = logger.child({ test: 'probe-stage' });

beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  const table = 'mailvet-probe-stage-test';
  await ensureTable(dynamo.endpoint, table);
  Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, TABLE_NAME: table });
  resetServiceClients();
  smtp = await startBatchSmtp({ rcpt: mailboxRule() });
});

afterAll(async () => {
  await smtp?.close();
  resetServiceClients();
  await dynamo?.stop();
});

interface Sent {
  queue: string;
  body: string;
  delaySeconds: number;
}

function deps(sent: Sent[], extra: Partial<ProbeStageDeps> = {}): ProbeStageDeps {
  return {
    politeness: new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 1000, leaseMs: 60_000 }),
    cache: new MemoryProbeVerdictCache(86400_000),
    session: { ...defaultBatchSessionOptions, port: smtp.port, timeoutMs: 1000, proxies: null },
    greylistRetries: 1,
    greylistDelaySeconds: 120,
    rcptPerSecondPerHost: 1000,
    clock: systemClock,
    send: async (queue, body, delaySeconds = 0) => void sent.push({ queue, body, delaySeconds }),
    ...extra,
  };
}

const plenty = { remainingMs: () => 100_000 };

async function processingJob(jobId: string): Promise<void> {
  await putProcessingJob(companyId, jobId);
}

function message(jobId: string, todo: string[], extra: Partial<ProbeMessage> = {}): ProbeMessage {
  return {
    kind: 'probe',
    chunk: {
      kind: 'chunk',
      companyId,
      jobId,
      index: 0,
      start: 0,
      end: 10,
      dataRows: todo.length,
      headerRow: false,
      delimiter: ',',
      encoding: 'utf-8',
      dataStart: 0,
      emailColumn: 0,
      object: { key: 'uploads/x.csv', etag: 'e', size: 10 },
    },
    batch: 0,
    batches: 1,
    host: 'mx.fixture.test',
    addresses: ['127.0.0.1'],
    size: todo.length,
    todo,
    done: {},
    greylistRounds: 0,
    handBacks: 0,
    ...extra,
  };
}

const jobState = async (jobId: string) =>
  (await getJobItem(companyId, jobId, true)) as unknown as JobProbeState & { processedEmails: number };

describe('processProbeMessage', () => {
  it('settles a batch once: a redelivered batch counts nothing twice and only re-sends the chunk', async () => {
    await processingJob('j-redeliver');
    const sent: Sent[] = [];
    const m = message('j-redeliver', ['ann@x.test', 'unknown1@x.test', 'full1@x.test']);
    await processProbeMessage(m, deps(sent), plenty, log);
    await processProbeMessage(m, deps(sent), plenty, log);
    const job = await jobState('j-redeliver');
    expect(job.probedEmails).toBe(3);
    expect(job.probeSettled).toEqual({ '0': 1 });
    expect(Object.fromEntries(await loadChunkVerdicts({ companyId, jobId: 'j-redeliver' }, 0))).toEqual({
      'ann@x.test': 'accepted',
      'unknown1@x.test': 'not_found',
      'full1@x.test': 'full',
    });
    // both deliveries send the chunk on (the chunk itself counts once: recordChunk's condition)
    expect(sent.map((s) => s.queue)).toEqual(['chunks', 'chunks']);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ kind: 'chunk', index: 0, probed: true });
    // the second delivery did not probe again
    expect(smtp.stats.rcpts.filter((r) => r === 'ann@x.test')).toHaveLength(1);
  });

  it('says why a batch counted nothing when its job stopped processing while the batch was probed', async () => {
    await processingJob('j-moved-mid');
    const sent: Sent[] = [];
    const cache = new MemoryProbeVerdictCache(86400_000);
    // the cache write comes just before the settle: the job is cancelled between the batch's read and it
    const cancelling: ProbeVerdictCache = {
      get: (emails) => cache.get(emails),
      put: async (verdicts) => {
        await dynamoDb().send(
          new UpdateCommand({
            TableName: process.env.TABLE_NAME,
            Key: jobKey(companyId, 'j-moved-mid'),
            UpdateExpression: 'SET #status = :cancelled',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':cancelled': 'cancelled' },
          }),
        );
        await cache.put(verdicts);
      },
    };
    const info = jest.spyOn(Logger.prototype, 'info');
    try {
      await processProbeMessage(
        message('j-moved-mid', ['ann@x.test']),
        deps(sent, { cache: cancelling }),
        plenty,
        log,
      );
      expect(info).toHaveBeenCalledWith('probe batch not counted', { why: 'job not processing' });
    } finally {
      info.mockRestore();
    }
    expect((await jobState('j-moved-mid')).probedEmails).toBeUndefined();
    expect(await readBatch({ companyId, jobId: 'j-moved-mid' }, 0, 0)).toEqual({
      settled: false,
      progress: undefined,
    });
  });

  it('hands the whole batch back, untouched and uncounted, when the invocation is near its deadline', async () => {
    await processingJob('j-deadline');
    const sent: Sent[] = [];
    const before = smtp.stats.sessions;
    const m = message('j-deadline', ['dora@x.test', 'eli@x.test']);
    await processProbeMessage(m, deps(sent), { remainingMs: () => 1000 }, log);
    expect(smtp.stats.sessions).toBe(before);
    expect(sent).toHaveLength(1);
    const back = JSON.parse(sent[0]!.body) as ProbeMessage;
    expect(sent[0]!.queue).toBe('probes');
    expect(back).toMatchObject({ todo: ['dora@x.test', 'eli@x.test'], handBacks: 1, batch: 0, done: {} });
    expect((await jobState('j-deadline')).probedEmails).toBeUndefined();
    // the handed-back batch settles normally later
    const later: Sent[] = [];
    await processProbeMessage(back, deps(later), plenty, log);
    expect((await jobState('j-deadline')).probedEmails).toBe(2);
  });

  it('hands a batch back after a delay when every session slot at its host is held', async () => {
    await processingJob('j-busy');
    const politeness = new MemoryPoliteness({
      maxSessionsPerHost: 1,
      rcptPerSecondPerHost: 1000,
      leaseMs: 60_000,
    });
    await politeness.acquireSession('mx.fixture.test');
    const sent: Sent[] = [];
    await processProbeMessage(message('j-busy', ['gus@x.test']), deps(sent, { politeness }), plenty, log);
    expect(sent).toEqual([expect.objectContaining({ queue: 'probes', delaySeconds: busyHostDelaySeconds })]);
    expect((await jobState('j-busy')).probedEmails).toBeUndefined();
  });

  it('never gives up at a busy host: waits as long as its RCPT schedule needs and shows when probing ends', async () => {
    await processingJob('j-wait');
    const job = { companyId, jobId: 'j-wait' };
    await recordProbeHandoff(job, 0, 300, 300);
    const politeness = new MemoryPoliteness({
      maxSessionsPerHost: 1,
      rcptPerSecondPerHost: 10,
      leaseMs: 60_000,
    });
    await politeness.acquireSession('mx.fixture.test');
    const todo = Array.from({ length: 100 }, (_, i) => `wait${i}@x.test`);
    const sent: Sent[] = [];
    const before = Date.now();
    // handed back far more often than the old limit of 50: still waiting, nothing settled
    const m = message('j-wait', todo, { handBacks: 500 });
    await processProbeMessage(m, deps(sent, { politeness, rcptPerSecondPerHost: 10 }), plenty, log);
    // 100 addresses at 10 RCPT a second: the host needs about 10 s for a batch like this one
    expect(sent).toEqual([expect.objectContaining({ queue: 'probes', delaySeconds: 10 })]);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ todo, handBacks: 501 });
    const item = (await getJobItem(companyId, 'j-wait', true))!;
    expect((item as { probedEmails?: number }).probedEmails).toBeUndefined();
    // the job's 300 addresses at 10 a second: about 30 s from now
    const view = jobView(item, Date.now());
    const expected = Date.parse(view.expectedFinishAt!);
    expect(expected).toBeGreaterThanOrEqual(before + 30_000);
    expect(expected).toBeLessThanOrEqual(Date.now() + 30_000);
    expect(view.unprobedEmails).toBe(0);
  });

  it('settles what it could not probe before the job deadline as not_attempted, and counts it', async () => {
    // the deadline is 5 minutes away: past the point where a batch stops waiting (10 minutes before it)
    await putProcessingJob(companyId, 'j-cutoff', Date.now() + 5 * 60_000);
    const sent: Sent[] = [];
    const sessions = smtp.stats.sessions;
    const m = message('j-cutoff', ['lou@x.test', 'unknown7@x.test'], {
      done: { 'kai@x.test': 'accepted' },
      size: 3,
    });
    await processProbeMessage(m, deps(sent), plenty, log);
    expect(smtp.stats.sessions).toBe(sessions);
    expect(Object.fromEntries(await loadChunkVerdicts({ companyId, jobId: 'j-cutoff' }, 0))).toEqual({
      'kai@x.test': 'accepted',
      'lou@x.test': 'not_attempted',
      'unknown7@x.test': 'not_attempted',
    });
    const item = (await getJobItem(companyId, 'j-cutoff', true))!;
    expect(item).toMatchObject({ probedEmails: 3, unprobedEmails: 2 });
    expect(jobView(item, Date.now()).unprobedEmails).toBe(2);
    expect(sent.map((s) => s.queue)).toEqual(['chunks']);
  });

  it('waits at a busy host no longer than until the job stops waiting', async () => {
    await putProcessingJob(companyId, 'j-near', Date.now() + 10 * 60_000 + 4_000);
    const politeness = new MemoryPoliteness({
      maxSessionsPerHost: 1,
      rcptPerSecondPerHost: 1,
      leaseMs: 60_000,
    });
    await politeness.acquireSession('mx.fixture.test');
    const sent: Sent[] = [];
    const todo = Array.from({ length: 50 }, (_, i) => `near${i}@x.test`);
    await processProbeMessage(
      message('j-near', todo),
      deps(sent, { politeness, rcptPerSecondPerHost: 1 }),
      plenty,
      log,
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]!.delaySeconds).toBeGreaterThan(0);
    expect(sent[0]!.delaySeconds).toBeLessThanOrEqual(4);
  });

  it("counts a host that refuses us (about us, not the mailbox) for the probing IP's health", async () => {
    const listed = await startBatchSmtp({
      rcpt: (address) =>
        address.startsWith('listed')
          ? '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org'
          : '250 2.1.5 OK',
    });
    const lines: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    process.env.EMF_METRICS = 'true';
    resetSettings();
    try {
      await processingJob('j-refused');
      const session = { ...defaultBatchSessionOptions, port: listed.port, timeoutMs: 1000, proxies: null };
      const m = message('j-refused', ['listed1@x.test', 'listed2@x.test', 'ok1@x.test']);
      await processProbeMessage(m, deps([], { session }), plenty, log);
    } finally {
      write.mockRestore();
      delete process.env.EMF_METRICS;
      resetSettings();
      await listed.close();
    }
    const metrics = lines.filter((l) => l.includes('CloudWatchMetrics')).map((l) => JSON.parse(l) as object);
    expect(metrics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ProbedHosts: 1 }),
        expect.objectContaining({ RefusingHosts: 1 }),
      ]),
    );
    const item = (await getJobItem(companyId, 'j-refused', true)) as unknown as JobProbeState;
    expect(item).toMatchObject({ blockedEmails: 2, unprobedEmails: 0 });
  });

  it('retries greylisted addresses through the queue delay, then settles with the later answer', async () => {
    await processingJob('j-grey');
    const sent: Sent[] = [];
    await processProbeMessage(message('j-grey', ['hal@x.test', 'grey9@x.test']), deps(sent), plenty, log);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.delaySeconds).toBe(120);
    const back = JSON.parse(sent[0]!.body) as ProbeMessage;
    expect(back).toMatchObject({
      todo: ['grey9@x.test'],
      done: { 'hal@x.test': 'accepted' },
      greylistRounds: 1,
    });
    const after: Sent[] = [];
    await processProbeMessage(back, deps(after), plenty, log);
    expect(Object.fromEntries(await loadChunkVerdicts({ companyId, jobId: 'j-grey' }, 0))).toEqual({
      'hal@x.test': 'accepted',
      'grey9@x.test': 'accepted',
    });
    expect((await jobState('j-grey')).probedEmails).toBe(2);
  });

  it('takes cached verdicts without probing', async () => {
    await processingJob('j-cache');
    const cache = new MemoryProbeVerdictCache(86400_000);
    await cache.put(new Map([['ivy@x.test', 'not_found']] as const));
    const sent: Sent[] = [];
    await processProbeMessage(message('j-cache', ['ivy@x.test']), deps(sent, { cache }), plenty, log);
    expect(smtp.stats.rcpts).not.toContain('ivy@x.test');
    expect(Object.fromEntries(await loadChunkVerdicts({ companyId, jobId: 'j-cache' }, 0))).toEqual({
      'ivy@x.test': 'not_found',
    });
  });

  it('stores the verdicts it probed in the cache once, when the batch settles, not those it read there', async () => {
    await processingJob('j-cache-once');
    const memory = new MemoryProbeVerdictCache(86400_000);
    await memory.put(new Map([['joy@x.test', 'accepted']] as const));
    const puts: string[][] = [];
    const gets: string[][] = [];
    const cache: ProbeVerdictCache = {
      get: (emails) => {
        gets.push([...emails].sort());
        return memory.get(emails);
      },
      put: async (verdicts) => {
        puts.push([...verdicts.keys()].sort());
        await memory.put(verdicts);
      },
    };
    const sent: Sent[] = [];
    const first = message('j-cache-once', ['joy@x.test', 'kim@x.test', 'grey5@x.test']);
    await processProbeMessage(first, deps(sent, { cache }), plenty, log);
    // handed back for the greylisted address: nothing stored yet, the cached address remembered
    expect(puts).toEqual([]);
    const back = JSON.parse(sent[0]!.body) as ProbeMessage;
    expect(back.cached).toEqual(['joy@x.test']);
    await processProbeMessage(back, deps([], { cache }), plenty, log);
    expect(puts).toEqual([['grey5@x.test', 'kim@x.test']]);
    // looked up once, in the first round: the round handed back does not ask the cache again
    expect(gets).toEqual([['grey5@x.test', 'joy@x.test', 'kim@x.test']]);
  });
});

describe('progress of a probed job', () => {
  it('never steps back when a chunk hands rows to probing after other chunks were counted', async () => {
    await processingJob('j-progress');
    const job = { companyId, jobId: 'j-progress' };
    const percents: number[] = [];
    const poll = async () => {
      const item = (await getJobItem(companyId, 'j-progress', true))!;
      percents.push(jobView(item, Date.now()).percentComplete);
    };
    await recordScan(job, {
      pin: { key: 'uploads/x.csv', etag: 'e', size: 10 },
      dialect: { delimiter: ',', encoding: 'utf-8', hasHeader: false, dataStart: 0 },
      chunkCount: 2,
      totalEmails: 20,
    });
    await poll();
    // chunk 0: 10 rows decided without a probe, counted at once
    const counted = { ...emptyStatistics(), safe: 10 };
    const now = new Date().toISOString();
    await recordChunk(job, { index: 0, counts: counted, partKey: 'p0', partBytes: 1 }, now);
    await poll();
    // chunk 1: 10 rows, 6 distinct addresses handed to probing in two batches of 3
    await recordProbeHandoff(job, 1, 10, 6);
    await poll();
    // a redelivered chunk credits nothing twice
    await recordProbeHandoff(job, 1, 10, 6);
    await poll();
    const batch = (n: number, todo: string[]) =>
      message('j-progress', todo, {
        chunk: { ...message('j-progress', []).chunk, index: 1 },
        batch: n,
        batches: 2,
      });
    const sent: Sent[] = [];
    await processProbeMessage(batch(0, ['ann@x.test', 'bob@x.test', 'cat@x.test']), deps(sent), plenty, log);
    await poll();
    await processProbeMessage(batch(1, ['dan@x.test', 'eve@x.test', 'fay@x.test']), deps(sent), plenty, log);
    await poll();
    await recordChunk(job, { index: 1, counts: counted, partKey: 'p1', partBytes: 1 }, now);
    await poll();
    // 0 after the scan, 50 with chunk 0, then up while probing (the old bar fell to 38 here)
    expect(percents).toEqual([0, 50, 85, 85, 92, 99, 99]);
  });
  it('moves while a batch waits out greylisting, counts a redelivered round once, and settles to its size', async () => {
    await processingJob('j-grey-progress');
    const job = { companyId, jobId: 'j-grey-progress' };
    await recordScan(job, {
      pin: { key: 'uploads/x.csv', etag: 'e', size: 10 },
      dialect: { delimiter: ',', encoding: 'utf-8', hasHeader: false, dataStart: 0 },
      chunkCount: 1,
      totalEmails: 4,
    });
    // 4 rows, all handed to probing in one batch
    await recordProbeHandoff(job, 0, 4, 4);
    const percent = async () =>
      jobView((await getJobItem(companyId, 'j-grey-progress', true))!, Date.now()).percentComplete;
    const percents = [await percent()];
    const first = message('j-grey-progress', ['ann@x.test', 'bob@x.test', 'cat@x.test', 'grey7@x.test']);
    const sent: Sent[] = [];
    await processProbeMessage(first, deps(sent), plenty, log);
    percents.push(await percent());
    // the round's progress recorded again (a redelivery), or lower (an older duplicate): no change
    await recordBatchProgress(job, 0, 0, 3, 3600);
    await recordBatchProgress(job, 0, 0, 2, 3600);
    percents.push(await percent());
    const back = JSON.parse(sent[0]!.body) as ProbeMessage;
    await processProbeMessage(back, deps([]), plenty, log);
    percents.push(await percent());
    // a late duplicate of the first round after the batch settled changes nothing
    await recordBatchProgress(job, 0, 0, 3, 3600);
    await processProbeMessage(first, deps([]), plenty, log);
    percents.push(await percent());
    // 4 units of 8 after the hand-off, 3 more for the verdicts of the first round, 1 more when it settles
    expect(percents).toEqual([50, 87, 87, 99, 99]);
    expect((await jobState('j-grey-progress')).probeProgress).toEqual({});
    expect((await jobState('j-grey-progress')).probedEmails).toBe(4);
  });
});

describe('settleProbeBatch', () => {
  it('tells the last batch of a chunk without reading the job again, and counts each batch once', async () => {
    await processingJob('j-last');
    const job = { companyId, jobId: 'j-last' };
    await recordProbeHandoff(job, 0, 3, 3);
    const known = { batches: 3, legacySettled: false };
    const sends = jest.spyOn(dynamoDb(), 'send');
    const settle = (batch: number) =>
      settleProbeBatch(job, 0, batch, 1, { [`u${batch}@x.test`]: 'accepted' }, 3600, undefined, known);
    try {
      expect(await settle(2)).toEqual({ counted: true, lastOfChunk: false });
      expect(await settle(0)).toEqual({ counted: true, lastOfChunk: false });
      // a redelivered batch counts nothing and is not the one to send the chunk on
      expect(await settle(0)).toEqual({ counted: false, why: 'batch settled before' });
      // the last: its first try fails for the others' count alone, the second counts it
      expect(await settle(1)).toEqual({ counted: true, lastOfChunk: true });
      const commands = sends.mock.calls.map(([command]) => command.constructor.name);
      // reads only to find that the redelivered batch was settled (its item, not the job)
      expect(commands.filter((name) => name === 'GetCommand')).toHaveLength(1);
    } finally {
      sends.mockRestore();
    }
    const state = await jobState('j-last');
    expect(state.probedEmails).toBe(3);
    expect(state.probeSettled).toEqual({ '0': 3 });
    expect(state.probeLastSettled).toEqual({ '0': 1 });
  });

  it('counts nothing for a job no longer processing, whatever it knows of the chunk', async () => {
    await processingJob('j-moved-on');
    const job = { companyId, jobId: 'j-moved-on' };
    await recordProbeHandoff(job, 0, 2, 2);
    await dynamoDb().send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: jobKey(companyId, 'j-moved-on'),
        UpdateExpression: 'SET #status = :cancelled',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled' },
      }),
    );
    const known = { batches: 2, legacySettled: false };
    expect(await settleProbeBatch(job, 0, 0, 1, {}, 3600, undefined, known)).toEqual({
      counted: false,
      why: 'job not processing',
    });
    expect((await jobState('j-moved-on')).probedEmails).toBeUndefined();
  });
});

describe('settleProbeBatch when the job item is gone', () => {
  it('counts nothing, writes no batch item and says the job is not processing (a TTL sweep took it)', async () => {
    await processingJob('j-swept');
    const job = { companyId, jobId: 'j-swept' };
    await recordProbeHandoff(job, 0, 2, 2);
    // what DynamoDB's (and DynamoDB Local's) TTL sweep does to a job item whose ttl has passed
    await dynamoDb().send(
      new DeleteCommand({ TableName: process.env.TABLE_NAME, Key: jobKey(companyId, 'j-swept') }),
    );
    expect(
      await settleProbeBatch(job, 0, 0, 2, { 'a@x.test': 'accepted', 'b@x.test': 'not_found' }, 3600),
    ).toEqual({
      counted: false,
      why: 'job not processing',
    });
    expect(await readBatch(job, 0, 0)).toEqual({ settled: false, progress: undefined });
  });
});

describe('a job that started before settled batches had their own items', () => {
  it('keeps its settled ids and its per-batch progress, and sends the chunk on from the last batch', async () => {
    await processingJob('j-legacy');
    const job = { companyId, jobId: 'j-legacy' };
    await recordProbeHandoff(job, 0, 3, 3);
    // as the earlier layout left it: batch 0-0 settled in the job's set, batch 0-1 with 1 verdict so far
    await dynamoDb().send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: jobKey(companyId, 'j-legacy'),
        UpdateExpression:
          'SET probeProgress.#b = :one, probeUnits.#c = probeUnits.#c + :one ADD settledProbes :ids, probedEmails :one',
        ExpressionAttributeNames: { '#b': '0-1', '#c': '0' },
        ExpressionAttributeValues: { ':one': 1, ':ids': new Set(['0-0']) },
      }),
    );
    const batch = (n: number, todo: string[]) => message('j-legacy', todo, { batch: n, batches: 3, size: 1 });
    const sent: Sent[] = [];
    // batch 0 again: already settled, counts nothing, and is not the one to send the chunk on
    expect(await settleProbeBatch(job, 0, 0, 1, {}, 3600)).toEqual({
      counted: false,
      why: 'job not processing',
    });
    // batch 1's progress recorded again, no higher than the legacy entry: no change
    await recordBatchProgress(job, 0, 1, 1, 3600);
    expect((await jobState('j-legacy')).probeProgress).toEqual({ '0-1': 1 });
    await processProbeMessage(batch(1, ['ann@x.test']), deps(sent), plenty, log);
    expect(sent).toEqual([]);
    await processProbeMessage(batch(2, ['bob@x.test']), deps(sent), plenty, log);
    expect(sent.map((s) => s.queue)).toEqual(['chunks']);
    const state = await jobState('j-legacy');
    expect(state.probedEmails).toBe(3);
    expect(state.probeProgress).toEqual({});
    expect(state.probeSettled).toEqual({ '0': 2 });
    // 2 per row: 3 for the hand-off and 1 per settled address
    expect(state.probeUnits).toEqual({ '0': 6 });
  });
});

describe('planProbeBatches', () => {
  it('groups by MX host, dedupes addresses and cuts batches deterministically', () => {
    const t = (email: string, host: string) => ({ email, host, addresses: ['127.0.0.1'] });
    const batches = planProbeBatches(
      [
        t('b@a.test', 'mx2'),
        t('a@a.test', 'mx1'),
        t('c@a.test', 'mx1'),
        t('A@a.test', 'mx1'),
        t('d@a.test', 'mx1'),
      ],
      2,
    );
    expect(batches.map((b) => b.map((x) => x.email))).toEqual([
      ['A@a.test', 'c@a.test'],
      ['d@a.test'],
      ['b@a.test'],
    ]);
  });
});
