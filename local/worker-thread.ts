// One worker thread of the local runtime (local/worker-pool.ts starts it): loads the handlers it is
// given, then runs each invocation the main thread sends, with a Lambda-like context, and answers with
// the handler's result or error. Its SDK clients, caches and every other module state are its own.
import '../functions/clients/sdk-notice';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { recordAwsCalls, runAsFunction } from '../functions/clients/call-recording';
import { lambdaContext } from './events';
import type { FromWorker, SerializedError, ToWorker, WorkerSetup } from './worker-pool';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const port = parentPort;
if (!port) throw new Error('local/worker-thread.ts runs only as a worker thread');
const setup = workerData as WorkerSetup;
const send = (message: FromWorker) => port.postMessage(message);

const handlers = new Map<string, Handler>();
for (const [name, { entry }] of Object.entries(setup.functions)) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(entry) as { handler?: Handler };
  if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler`);
  handlers.set(name, module.handler);
}

if (setup.recordAwsCalls) {
  // Times on the main thread's clock, invocation numbers apart from every other thread's.
  const shift = performance.timeOrigin - setup.timeOrigin;
  recordAwsCalls((call) =>
    send({
      type: 'call',
      call: {
        ...call,
        at: call.at + shift,
        invocation: call.invocation === undefined ? undefined : setup.invocationBase + call.invocation,
      },
    }),
  );
}

function serialize(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

async function run(message: Extract<ToWorker, { type: 'invoke' }>): Promise<void> {
  const handler = handlers.get(message.name);
  const spec = setup.functions[message.name];
  try {
    if (!handler || !spec) throw new Error(`Function ${message.name} is not loaded in this worker`);
    const { timeoutSeconds, memoryMb } = spec;
    const context = lambdaContext(message.name, timeoutSeconds * 1000, memoryMb);
    // runAsFunction enters its AsyncLocalStorage only while calls are recorded (setup.recordAwsCalls)
    const value = await runAsFunction(message.name, () => handler(message.event, context));
    send({ type: 'result', id: message.id, value });
  } catch (error) {
    send({ type: 'error', id: message.id, error: serialize(error) });
  }
}

/**
 * With MAILVET_CPU_PROFILE=<dir> (bench/profile.ts sets it), the thread profiles itself from here on and
 * writes <dir>/worker-<threadId>.cpuprofile when the pool stops it: node --cpu-prof writes nothing for a
 * worker that is terminated rather than left to exit.
 */
function startProfile(dir: string): () => Promise<void> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
    );
  const started = post('Profiler.enable').then(() => post('Profiler.start'));
  return async () => {
    await started;
    const { profile } = await post<{ profile: unknown }>('Profiler.stop');
    writeFileSync(path.join(dir, `worker-${threadId}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
const profileDir = process.env.MAILVET_CPU_PROFILE;
const stopProfile = profileDir ? startProfile(profileDir) : undefined;

port.on('message', (message: ToWorker) => {
  if (message.type === 'invoke') return void run(message);
  // the pool is stopping: the profile (if any) is written before the thread goes
  void (stopProfile?.() ?? Promise.resolve())
    .catch((error: unknown) => console.error('worker profile not written', error))
    .finally(() => send({ type: 'stopped' }));
});
send({ type: 'ready' });
