// The event `npm run invoke -- <function> [--event file.json]` runs a function with: the file named, else
// events/<function>.json, else, for a scheduled function, the ScheduledRun of its schedule firing now.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ScheduleSpec } from '../functions/wiring';
import { scheduledRunEvent } from './events';

export function invokeEvent(
  name: string,
  argv: string[],
  options: { eventsDir: string; schedules: readonly ScheduleSpec[]; now: Date },
): unknown {
  const eventFlag = argv.indexOf('--event');
  const eventFile = eventFlag >= 0 ? argv[eventFlag + 1] : path.join(options.eventsDir, `${name}.json`);
  if (eventFile && existsSync(eventFile)) return JSON.parse(readFileSync(eventFile, 'utf8')) as unknown;
  const schedule = options.schedules.find((s) => s.function === name);
  if (schedule && eventFlag < 0) return scheduledRunEvent(schedule.name, options.now);
  throw new Error(`No event file: ${eventFile ?? '(missing after --event)'}`);
}
