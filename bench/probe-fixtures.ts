// bench/probe.ts's fixture mail world (one DNS server, one SMTP server per MX host) in a worker thread
// of its own (bench/probe-fixture-thread.ts): the servers note when each RCPT arrives on an event loop
// that the handlers' CPU never stalls, so the politeness counts are what a remote host would see, not
// late reads counted together after a stall of the bench's own thread.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** What the fixture thread serves. */
export interface ProbeFixtureOptions {
  domains: number;
  /** Every SMTP command is answered this long after it arrived. */
  delayMs: number;
}

/** What the SMTP servers saw, read once the job is done. */
export interface ProbeFixtureStats {
  /** Probe RCPTs (the catch-all tests left out). */
  probeRcpts: number;
  /** Sessions that carried at least one probe RCPT. */
  probeSessions: number;
  /** When the first and the last probe RCPT arrived (ms since the epoch; 0 before any). */
  firstRcptAt: number;
  lastRcptAt: number;
  /** Per host, when each probe RCPT arrived (ms since the epoch). */
  rcptTimes: number[][];
  /** The most sessions any host had open at once. */
  maxOpen: number;
}

export type ToFixtureThread = { type: 'progress' } | { type: 'stats' } | { type: 'close' };
export type FromFixtureThread =
  | { type: 'ready'; dnsServers: string[]; smtpPort: number }
  | { type: 'firstRcpt'; at: number }
  | { type: 'progress'; probeRcpts: number; firstRcptAt: number }
  | { type: 'stats'; stats: ProbeFixtureStats }
  | { type: 'error'; message: string };

/** Host n's loopback address (127.0.x.y): every host listens on the same port. */
export const hostAddress = (n: number) => `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;

/** 0..99 from the address: < 10 rejected (5.1.1), < 15 greylisted once, else accepted. */
export function bucketOf(address: string): number {
  return createHash('sha1').update(address).digest().readUInt16BE(0) % 100;
}

export interface ProbeFixtures {
  dnsServers: string[];
  smtpPort: number;
  /** Probe RCPTs so far, and when the first arrived (0 before any). */
  progress(): Promise<{ probeRcpts: number; firstRcptAt: number }>;
  stats(): Promise<ProbeFixtureStats>;
  close(): Promise<void>;
}

/**
 * Starts the fixture servers in their own thread; `onFirstRcpt` is called when the first probe RCPT
 * arrives (its arrival time, ms since the epoch).
 */
export async function startProbeFixtures(
  options: ProbeFixtureOptions,
  onFirstRcpt: (at: number) => void,
): Promise<ProbeFixtures> {
  // TypeScript in the worker as in this process (tsx), as local/worker-pool.ts loads its handlers
  const code = `require(${JSON.stringify(require.resolve('tsx/cjs'))});\nrequire(${JSON.stringify(require.resolve('./probe-fixture-thread.ts'))});\n`;
  const worker = new Worker(code, { eval: true, workerData: options, execArgv: [] });
  type Waiter = { resolve: (message: FromFixtureThread) => void; reject: (error: Error) => void };
  const waiting = new Map<FromFixtureThread['type'], Waiter[]>();
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const waiters of waiting.values()) for (const waiter of waiters) waiter.reject(failure);
    waiting.clear();
  };
  worker.on('message', (message: FromFixtureThread) => {
    if (message.type === 'firstRcpt') onFirstRcpt(message.at);
    else if (message.type === 'error') fail(new Error(`fixture thread: ${message.message}`));
    else waiting.get(message.type)?.shift()?.resolve(message);
  });
  worker.on('error', fail);
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      fail(new Error('the fixture thread exited'));
      resolve();
    }),
  );
  const answer = <T extends FromFixtureThread['type']>(type: T) =>
    new Promise<Extract<FromFixtureThread, { type: T }>>((resolve, reject) => {
      if (failure) return reject(failure);
      const waiters = waiting.get(type) ?? [];
      waiters.push({
        resolve: (message) => resolve(message as Extract<FromFixtureThread, { type: T }>),
        reject,
      });
      waiting.set(type, waiters);
    });
  const ask = <T extends ToFixtureThread['type'] & FromFixtureThread['type']>(type: T) => {
    const answered = answer(type);
    worker.postMessage({ type } satisfies ToFixtureThread);
    return answered;
  };
  const ready = await answer('ready');
  return {
    dnsServers: ready.dnsServers,
    smtpPort: ready.smtpPort,
    progress: async () => {
      const { probeRcpts, firstRcptAt } = await ask('progress');
      return { probeRcpts, firstRcptAt };
    },
    stats: async () => (await ask('stats')).stats,
    close: async () => {
      worker.postMessage({ type: 'close' } satisfies ToFixtureThread);
      await exited;
    },
  };
}
