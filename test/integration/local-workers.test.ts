// The local runtime's worker threads (local/worker-pool.ts): each has its own module state, as separate
// Lambda instances have; errors come back as they were thrown; a worker that dies fails its invocations
// and is replaced.
import path from 'node:path';
import { startWorkerPool, WorkerDiedError, type WorkerPool } from '../../local/worker-pool';
import { handler as fixtureHandler } from '../fixtures/workers/handler';
import { until } from '../helpers/until';

const fixture = {
  entry: path.join(__dirname, '../fixtures/workers/handler.ts'),
  timeoutSeconds: 30,
  memoryMb: 128,
};

let pool: WorkerPool;

beforeAll(async () => {
  pool = await startWorkerPool({ size: 2, functions: { fixture }, env: process.env });
});

afterAll(async () => {
  await pool?.stop();
});

describe('the local worker pool', () => {
  it('uses a fixture whose counter sees every invocation made on one thread', async () => {
    const answers = (await Promise.all(
      Array.from({ length: 3 }, () => fixtureHandler({ action: 'count' })),
    )) as { invocations: number }[];
    expect(Math.max(...answers.map((a) => a.invocations))).toBe(3);
  });

  it('gives each worker its own module state, so state shared between invocations is not', async () => {
    const answers = (await Promise.all(
      Array.from({ length: 20 }, () => pool.invoke('fixture', { action: 'count' })),
    )) as { threadId: number; invocations: number }[];
    const byThread = new Map<number, number>();
    for (const answer of answers)
      byThread.set(answer.threadId, Math.max(byThread.get(answer.threadId) ?? 0, answer.invocations));
    // Both workers ran some, and neither counter saw all twenty: a handler counting on one would be wrong.
    expect([...byThread.keys()].sort()).toEqual([...pool.threadIds()].sort());
    expect(Math.max(...byThread.values())).toBeLessThan(20);
    expect([...byThread.values()].reduce((sum, n) => sum + n, 0)).toBe(20);
  });

  it("rejects with the handler's own error when it throws", async () => {
    await expect(pool.invoke('fixture', { action: 'fail' })).rejects.toMatchObject({
      name: 'PurposeError',
      message: 'the handler failed on purpose',
    });
  });

  it('rejects with a clear error for a function it does not run', async () => {
    await expect(pool.invoke('nothing', {})).rejects.toThrow('Function nothing is not loaded in this worker');
  });

  it('runs at most two chunk validations per worker at once; the rest wait for a turn', async () => {
    const limited = await startWorkerPool({
      size: 2,
      functions: { validateChunk: fixture },
      env: process.env,
    });
    try {
      const answers = Array.from({ length: 10 }, (_, n) =>
        limited
          .invoke('validateChunk', { action: n % 5 === 0 ? 'fail' : 'count' })
          .catch((error: unknown) => error),
      );
      expect(limited.running()).toEqual([
        ['validateChunk', 'validateChunk'],
        ['validateChunk', 'validateChunk'],
      ]);
      // a failed invocation hands its turn on too: every one of them ends
      const settled = await Promise.all(answers);
      expect(settled.filter((answer) => answer instanceof Error)).toHaveLength(2);
      expect(limited.running()).toEqual([[], []]);
    } finally {
      await limited.stop();
    }
  });

  it('counts a scan as two invocations when it picks a worker: the other takes more chunks meanwhile', async () => {
    const weighted = await startWorkerPool({
      size: 2,
      functions: { startProcessing: fixture, validateChunk: fixture },
      env: process.env,
    });
    try {
      const calls = [
        weighted.invoke('startProcessing', { action: 'hang' }),
        ...Array.from({ length: 4 }, () => weighted.invoke('validateChunk', { action: 'hang' })),
      ];
      for (const call of calls) call.catch(() => undefined);
      const running = weighted.running().map((names) => [...names].sort());
      expect(running).toEqual([['startProcessing', 'validateChunk'], Array(3).fill('validateChunk')]);
    } finally {
      await weighted.stop();
    }
  });

  it('fails the invocations of a worker that dies and replaces the worker', async () => {
    const before = pool.threadIds();
    const hanging = pool.invoke('fixture', { action: 'hang' });
    const index = pool.running().findIndex((names) => names.includes('fixture'));
    expect(index).toBeGreaterThanOrEqual(0);
    await pool.kill(index);
    await expect(hanging).rejects.toBeInstanceOf(WorkerDiedError);
    const replaced = await until('a new worker', async () =>
      pool.threadIds()[index] !== before[index] ? pool.threadIds() : undefined,
    );
    expect(replaced).toHaveLength(2);
    // Once it has loaded the handler, the new worker takes invocations, with a fresh module state.
    const fresh = await until('an answer from the new worker', async () => {
      const answers = (await Promise.all(
        Array.from({ length: 4 }, () => pool.invoke('fixture', { action: 'count' })),
      )) as { threadId: number; invocations: number }[];
      return answers.find((answer) => answer.threadId === replaced[index]);
    });
    expect(fresh.invocations).toBeLessThanOrEqual(4);
  });
});
