// Checks that functions/wiring.ts describes something deployable before any resource is built, so a
// typo in a route or consumer fails `cdk synth` with the wiring's own names instead of a CDK stack trace.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  BucketTriggerSpec,
  FunctionSpec,
  QueueConsumerSpec,
  QueueSpec,
  RouteSpec,
  ScheduleSpec,
} from '../functions/wiring';

export interface Wiring {
  functions: readonly FunctionSpec[];
  routes: readonly RouteSpec[];
  defaultRouteFunction: string;
  queues: readonly QueueSpec[];
  queueConsumers: readonly QueueConsumerSpec[];
  bucketTriggers: readonly BucketTriggerSpec[];
  schedules: readonly ScheduleSpec[];
}

/** Lambda rejects a queue whose visibility timeout is below the function's; 6x leaves room for retries. */
const visibilityTimeoutFactor = 6;
/** Lambda's SQS event source refuses a maximum concurrency below 2. */
const minimumMaxConcurrency = 2;
/** A dead-letter queue nobody consumes keeps SQS's default visibility timeout. */
const defaultVisibilityTimeoutSeconds = 30;

/** Visibility timeout of a queue's DLQ: 6x its slowest DLQ consumer, so a batch never reappears mid-run. */
export function deadLetterVisibilityTimeoutSeconds(wiring: Wiring, queue: string): number {
  const timeouts = wiring.queueConsumers
    .filter((c) => c.queue === queue && c.deadLetters)
    .map(
      (c) =>
        visibilityTimeoutFactor * (wiring.functions.find((f) => f.name === c.function)?.timeoutSeconds ?? 0),
    );
  return Math.max(defaultVisibilityTimeoutSeconds, ...timeouts);
}

/** Throws one error listing every problem found; `repoRoot` is where handler entries are resolved. */
export function checkWiring(wiring: Wiring, repoRoot: string): void {
  const problems: string[] = [];
  const byName = new Map<string, FunctionSpec>();
  for (const f of wiring.functions) {
    if (byName.has(f.name)) problems.push(`function ${f.name} is defined twice`);
    byName.set(f.name, f);
    if (!fs.existsSync(path.resolve(repoRoot, f.entry)))
      problems.push(`function ${f.name}: handler file ${f.entry} does not exist`);
  }
  const queueNames = new Set(wiring.queues.map((q) => q.name));
  for (const f of wiring.functions)
    for (const q of f.access.sendsTo ?? [])
      if (!queueNames.has(q)) problems.push(`function ${f.name} sends to unknown queue ${q}`);

  const routeKeys = new Set<string>();
  for (const r of wiring.routes) {
    const key = `${r.method} ${r.path}`;
    if (routeKeys.has(key)) problems.push(`route ${key} is defined twice`);
    routeKeys.add(key);
    if (!byName.has(r.function)) problems.push(`route ${key} names unknown function ${r.function}`);
  }
  if (!byName.has(wiring.defaultRouteFunction))
    problems.push(`$default route names unknown function ${wiring.defaultRouteFunction}`);

  for (const c of wiring.queueConsumers) {
    const fn = byName.get(c.function);
    const queue = wiring.queues.find((q) => q.name === c.queue);
    const label = `consumer ${c.function} of ${c.queue}${c.deadLetters ? ' DLQ' : ''}`;
    if (!fn) problems.push(`${label}: unknown function ${c.function}`);
    if (!queue) problems.push(`${label}: unknown queue ${c.queue}`);
    if (c.maxConcurrency < minimumMaxConcurrency)
      problems.push(`${label}: maxConcurrency ${c.maxConcurrency} is below Lambda's minimum of 2`);
    if (!fn || !queue) continue;
    const visibility = c.deadLetters
      ? deadLetterVisibilityTimeoutSeconds(wiring, c.queue)
      : queue.visibilityTimeoutSeconds;
    if (visibility < visibilityTimeoutFactor * fn.timeoutSeconds)
      problems.push(
        `${label}: visibility timeout ${visibility}s is below ${visibilityTimeoutFactor}x the function timeout ` +
          `(${fn.timeoutSeconds}s)`,
      );
  }

  for (const t of wiring.bucketTriggers) {
    if (!byName.has(t.function))
      problems.push(`bucket trigger on ${t.prefix} names unknown function ${t.function}`);
    if (!byName.has(t.onFailure))
      problems.push(`bucket trigger on ${t.prefix} names unknown on-failure function ${t.onFailure}`);
  }

  const scheduleNames = new Set<string>();
  for (const s of wiring.schedules) {
    if (scheduleNames.has(s.name)) problems.push(`schedule ${s.name} is defined twice`);
    scheduleNames.add(s.name);
    if (!/^[a-z][A-Za-z0-9]*$/.test(s.name)) problems.push(`schedule ${s.name}: name must be camelCase`);
    if (!byName.has(s.function)) problems.push(`schedule ${s.name} names unknown function ${s.function}`);
    const every = s.every;
    if ('minutesSetting' in every) {
      if (!(every.defaultMinutes > 0))
        problems.push(`schedule ${s.name}: defaultMinutes ${every.defaultMinutes} is not above 0`);
    } else if (!Number.isInteger(every.defaultHour) || every.defaultHour < 0 || every.defaultHour > 23)
      problems.push(`schedule ${s.name}: defaultHour ${every.defaultHour} is not a whole hour from 0 to 23`);
    const setting = 'minutesSetting' in every ? every.minutesSetting : every.dailyHourUtcSetting;
    if (!/^[A-Z][A-Z0-9_]*$/.test(setting))
      problems.push(`schedule ${s.name}: setting ${setting} is not an environment variable name`);
  }

  if (problems.length > 0)
    throw new Error(`functions/wiring.ts is not deployable:\n- ${problems.join('\n- ')}`);
}
