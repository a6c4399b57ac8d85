// The wiring's schedules on the local runtime: one timer per ScheduleSpec, invoking its function with a
// ScheduledRun through the runtime's invoke (a worker thread, like the queue consumers), as EventBridge
// Scheduler does in AWS. The interval (minutes, decimals allowed: 0.1 is every 6 s) or the daily hour
// UTC is the setting the spec names, read from the runtime's environment when it starts. A run that
// fails is logged and the timer goes on; a run still going when the next is due is not doubled.
import type { ScheduleSpec } from '../functions/wiring';
import { logger } from '../functions/log';
import { scheduledRunEvent } from './events';

export interface ScheduleTimersOptions {
  schedules: readonly ScheduleSpec[];
  /** The settings the handlers run with (the runtime's env). */
  env: Record<string, string | undefined>;
  invoke: (functionName: string, event: unknown) => Promise<unknown>;
  /** Default Date.now: the wall clock the scheduled times are read from. */
  now?: () => number;
}

export interface ScheduleTimers {
  /** Each schedule's period in ms (daily ones: a day), for the logs and the tests. */
  readonly periods: ReadonlyMap<string, number>;
  /** How many runs each schedule has started. */
  runs(name: string): number;
  /** Stops the timers and waits for the runs in flight. */
  stop(): Promise<void>;
}

const minute = 60_000;
const day = 24 * 60 * minute;

/** The first run time and the period of a schedule; throws naming the setting when it is unusable. */
export function localTiming(
  spec: ScheduleSpec,
  env: Record<string, string | undefined>,
  now: number,
): { first: number; period: number } {
  const read = (setting: string): number | undefined => {
    const raw = env[setting];
    if (raw === undefined || raw.trim() === '') return undefined;
    const value = Number(raw.trim());
    if (!Number.isFinite(value)) throw new Error(`${setting} must be a number, not ${raw}`);
    return value;
  };
  if ('minutesSetting' in spec.every) {
    const minutes = read(spec.every.minutesSetting) ?? spec.every.defaultMinutes;
    if (!(minutes > 0))
      throw new Error(`${spec.every.minutesSetting} (schedule ${spec.name}) must be more than 0 minutes`);
    const period = Math.round(minutes * minute);
    return { first: now + period, period };
  }
  const hour = read(spec.every.dailyHourUtcSetting) ?? spec.every.defaultHour;
  if (!Number.isInteger(hour) || hour < 0 || hour > 23)
    throw new Error(
      `${spec.every.dailyHourUtcSetting} (schedule ${spec.name}) must be a whole hour from 0 to 23`,
    );
  const today = new Date(now);
  let first = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), hour);
  if (first <= now) first += day;
  return { first, period: day };
}

export function startScheduleTimers(options: ScheduleTimersOptions): ScheduleTimers {
  const now = options.now ?? Date.now;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const runCounts = new Map<string, number>();
  const periods = new Map<string, number>();
  let stopped = false;

  // Read every setting first: a bad one stops the start before any timer runs.
  const timings = options.schedules.map((spec) => ({ spec, ...localTiming(spec, options.env, now()) }));
  for (const { spec, first, period } of timings) {
    periods.set(spec.name, period);
    const log = logger.child({ function: spec.function, schedule: spec.name });
    let running = false;
    let due = first;
    const arm = () => {
      if (stopped) return;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          const scheduledFor = due;
          // Drift-free: the next run is due one period after this one was, not after it ran.
          due += period;
          while (due <= now()) due += period;
          arm();
          if (running) {
            log.warn('scheduled run skipped: the previous run is still going');
            return;
          }
          running = true;
          runCounts.set(spec.name, (runCounts.get(spec.name) ?? 0) + 1);
          const run = options
            .invoke(spec.function, scheduledRunEvent(spec.name, new Date(scheduledFor)))
            .then(
              () => undefined,
              (error: unknown) => log.error('scheduled run failed', error),
            )
            .finally(() => {
              running = false;
              inFlight.delete(run);
            });
          inFlight.add(run);
        },
        Math.max(0, due - now()),
      );
      timers.add(timer);
    };
    arm();
  }

  return {
    periods,
    runs: (name) => runCounts.get(name) ?? 0,
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
