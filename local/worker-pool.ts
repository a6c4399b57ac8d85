// The local runtime's worker threads: the queue consumers and the S3-event functions run here, spread
// over the machine's cores, while the API stays on the main thread. Each worker loads the handlers
// itself, so it has its own module state and its own SDK clients, as a separate Lambda instance has:
// a handler that counts on state shared between invocations fails here as it would on AWS.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { AwsCall } from '../functions/clients/call-recording';
import { logger } from '../functions/log';

/** A function a worker runs: its handler module (absolute path) and what its context says. */
export interface WorkerFunction {
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
}

/** What the main thread tells a worker when it starts (local/worker-thread.ts reads it). */
export interface WorkerSetup {
  /** The functions by name. */
  functions: Record<string, WorkerFunction>;
  /** Send every AWS call the functions make back to the main thread. */
  recordAwsCalls: boolean;
  /** The main thread's performance.timeOrigin: call times are rebased on it. */
  timeOrigin: number;
  /** Added to the worker's own invocation numbers, so no two threads hand out the same one. */
  invocationBase: number;
}

export type ToWorker =
  | { type: 'invoke'; id: number; name: string; event: unknown }
  /** The pool is stopping: finish what must be written (a CPU profile), answer `stopped`. */
  | { type: 'stop' };

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
}

export type FromWorker =
  | { type: 'ready' }
  | { type: 'stopped' }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'call'; call: AwsCall };

export interface WorkerPoolOptions {
  size: number;
  functions: Record<string, WorkerFunction>;
  /** The settings the handlers read (the worker's process.env). */
  env: Record<string, string | undefined>;
  /** Receives each AWS call the workers' functions make; unset: nothing is recorded. */
  onAwsCall?: (call: AwsCall) => void;
}

export interface WorkerPool {
  readonly size: number;
  /** Runs `name` in the least busy worker; rejects if that worker dies before it answers. */
  invoke(name: string, event: unknown): Promise<unknown>;
  /** The functions each worker is running now (one entry per invocation). */
  running(): string[][];
  /** The workers' thread ids now (a worker that died is replaced by one with a new id). */
  threadIds(): number[];
  /**
   * Ends worker `index` as a crash would: its invocations fail, their messages stay on their queues, and
   * a new worker takes its place. For the tests.
   */
  kill(index: number): Promise<void>;
  /** Ends every worker (invocations still running fail). */
  stop(): Promise<void>;
}

/**
 * Invocations of these CPU-bound functions at once, per worker on average (the pool holds this many
 * turns per worker, and the least busy worker takes each); more wait in the pool for a turn, as
 * Lambda would keep them queued. A chunk is ~4 MB of pure computation: twenty of them interleaved in
 * two threads (the chunks queue's maxConcurrency) finish no sooner than four, but hold five times the
 * memory (peak RSS near 1 GB on a 100 MB file) and slow the scan that shares their thread.
 */
const perWorkerLimits: Readonly<Record<string, number>> = { validateChunk: 2 };

/**
 * How much an invocation weighs when the pool picks the least busy worker (1 unless listed). The scan of
 * an upload (startProcessing) runs on one thread for as long as several chunks do: counted as one
 * invocation, it drew as many chunks to its thread as the other one got, and those waited behind the
 * scan while the other core had room (the first chunks of a job also wait on DNS there).
 */
const dispatchWeights: Readonly<Record<string, number>> = { startProcessing: 2 };

/** Worker invocation numbers start here: the main thread's own (the API's) stay below. */
const invocationBaseStep = 1_000_000_000;

/** The class of error an invocation gets when its worker dies under it. */
export class WorkerDiedError extends Error {
  override name = 'WorkerDiedError';
}

interface Slot {
  worker: Worker;
  /** False once the thread has exited: it takes no more invocations. */
  alive: boolean;
  /** True once it has loaded its handlers. */
  ready: boolean;
  pending: Map<number, { name: string; resolve: (value: unknown) => void; reject: (error: Error) => void }>;
  exited: Promise<void>;
  /** Called when the worker answers a `stop`. */
  onStopped?: () => void;
}

/**
 * Loads TypeScript in the worker as `npm start` (tsx) does; under Jest too, whose transform reaches only
 * the main thread.
 */
function bootstrap(): string {
  const tsx = require.resolve('tsx/cjs');
  const thread = require.resolve('./worker-thread.ts');
  return `require(${JSON.stringify(tsx)});\nrequire(${JSON.stringify(thread)});\n`;
}

function revive(error: SerializedError): Error {
  const revived = new Error(error.message);
  revived.name = error.name;
  if (error.stack) revived.stack = error.stack;
  return revived;
}

export async function startWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  if (!Number.isInteger(options.size) || options.size < 1)
    throw new Error(`a worker pool needs at least one worker, got ${options.size}`);
  const code = bootstrap();
  const slots: Slot[] = [];
  let started = 0;
  let nextId = 0;
  let stopping = false;

  /** Starts worker `index`; resolves once it has loaded its handlers. */
  function spawn(index: number): Promise<void> {
    started += 1;
    const setup: WorkerSetup = {
      functions: options.functions,
      recordAwsCalls: options.onAwsCall !== undefined,
      timeOrigin: performance.timeOrigin,
      invocationBase: started * invocationBaseStep,
    };
    const worker = new Worker(code, {
      eval: true,
      workerData: setup,
      // The settings as the runtime has them now (Jest gives tests a copy of process.env).
      env: { ...options.env },
      // No --import tsx from the parent: the bootstrap registers tsx itself.
      execArgv: [],
    });
    const pending: Slot['pending'] = new Map();
    const slot: Slot = { worker, alive: true, ready: false, pending, exited: Promise.resolve() };
    const readiness = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          slot.ready = true;
          resolve();
        } else if (message.type === 'stopped') {
          slot.onStopped?.();
        } else if (message.type === 'call') {
          options.onAwsCall?.(message.call);
        } else {
          const waiter = pending.get(message.id);
          pending.delete(message.id);
          if (message.type === 'result') waiter?.resolve(message.value);
          else waiter?.reject(revive(message.error));
        }
      });
      worker.on('error', (error) => {
        if (!slot.ready) reject(error);
        else logger.error('local worker crashed', error, { threadId: worker.threadId });
      });
    });
    slot.exited = new Promise<void>((resolve) => {
      worker.once('exit', (exitCode) => {
        slot.alive = false;
        for (const waiter of pending.values())
          waiter.reject(new WorkerDiedError(`the worker thread running it exited (code ${exitCode})`));
        pending.clear();
        resolve();
        // A worker that never got ready would only fail again: the start reports it instead.
        if (!stopping && slot.ready && slots[index]?.worker === worker) {
          logger.warn('local worker exited; starting another', { exitCode });
          spawn(index).catch((error: unknown) => logger.error('local worker failed to start', error));
        }
      });
    });
    // In the rotation at once: invocations sent before it is ready wait in its port.
    slots[index] = slot;
    const exitedEarly = slot.exited.then(() => {
      if (!slot.ready) throw new Error('it exited before it had loaded the handlers');
    });
    return Promise.race([readiness, exitedEarly]);
  }

  // Workers that profile themselves (local/worker-thread.ts) write their profile before they are ended.
  const profiling = options.env.MAILVET_CPU_PROFILE !== undefined;
  const profileWritten = (slot: Slot) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      slot.onStopped = () => {
        clearTimeout(timer);
        resolve();
      };
      slot.exited.then(resolve, resolve);
      slot.worker.postMessage({ type: 'stop' } satisfies ToWorker);
    });

  const stopAll = async () => {
    stopping = true;
    await Promise.all(
      slots.map(async (slot) => {
        if (profiling && slot.alive && slot.ready) await profileWritten(slot);
        await slot.worker.terminate();
        await slot.exited;
      }),
    );
  };

  try {
    await Promise.all(Array.from({ length: options.size }, (_, index) => spawn(index)));
  } catch (error) {
    await stopAll();
    throw new Error(
      `a local worker thread failed to start: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  /** Turns of the functions in perWorkerLimits: how many more may start, and who waits for one. */
  const turns = new Map<string, { free: number; waiting: (() => void)[] }>();
  for (const [name, limit] of Object.entries(perWorkerLimits))
    turns.set(name, { free: limit * options.size, waiting: [] });
  const takeTurn = (name: string): Promise<void> | undefined => {
    const turn = turns.get(name);
    if (!turn) return undefined;
    if (turn.free > 0) {
      turn.free--;
      return undefined;
    }
    return new Promise((resolve) => turn.waiting.push(resolve));
  };
  const giveTurn = (name: string) => {
    const turn = turns.get(name);
    if (!turn) return;
    const next = turn.waiting.shift();
    if (next) next();
    else turn.free++;
  };

  function dispatch(name: string, event: unknown): Promise<unknown> {
    if (stopping) return Promise.reject(new Error('The local worker threads are stopping'));
    // The least busy worker by weight, the first of equals; one still starting (a replacement) only if
    // none is ready.
    const live = slots.filter((s) => s.alive);
    const ready = live.filter((s) => s.ready);
    const candidates = ready.length > 0 ? ready : live;
    if (candidates.length === 0) return Promise.reject(new Error('No local worker thread is running'));
    const load = (s: Slot) => {
      let sum = 0;
      for (const waiter of s.pending.values()) sum += dispatchWeights[waiter.name] ?? 1;
      return sum;
    };
    const slot = candidates.reduce((best, s) => (load(s) < load(best) ? s : best));
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { name, resolve, reject });
      const message: ToWorker = { type: 'invoke', id, name, event };
      try {
        slot.worker.postMessage(message);
      } catch (error) {
        slot.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  return {
    size: options.size,
    invoke(name, event) {
      const waited = takeTurn(name);
      const run = () => dispatch(name, event).finally(() => giveTurn(name));
      return waited ? waited.then(run) : turns.has(name) ? run() : dispatch(name, event);
    },
    running: () => slots.map((slot) => [...slot.pending.values()].map((waiter) => waiter.name)),
    threadIds: () => slots.map((slot) => slot.worker.threadId),
    async kill(index) {
      const slot = slots[index];
      if (!slot) throw new Error(`no worker ${index}`);
      await slot.worker.terminate();
      await slot.exited;
    },
    stop: stopAll,
  };
}
