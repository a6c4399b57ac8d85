// Schedule placementDaily (PLACEMENT_HOUR_UTC): fans the day's placement tests out, one send message
// and one (delayed) check message per mailbox of the network; the queues' consumers do the work.
import middy from '@middy/core';
import { systemClock, type Clock } from '../clock';
import { startPlacementDay } from '../domain/mailboxes/placement';
import { utcDate } from '../domain/workspace/dates';
import { logger } from '../log';

/** What a schedule invokes its function with (functions/wiring.ts schedules). */
interface ScheduledRun {
  schedule?: string;
  time?: string;
}

export async function startDay(
  run: ScheduledRun,
  clock: Clock = systemClock,
): Promise<{ day: string; mailboxes: number }> {
  const at = run.time && !Number.isNaN(Date.parse(run.time)) ? new Date(run.time) : clock();
  const day = utcDate(at);
  const plan = await startPlacementDay(day, logger.child({ function: 'startPlacementDay' }));
  return { day, mailboxes: plan.sends.length };
}

export const handler = middy<ScheduledRun, { day: string; mailboxes: number }>().handler(
  (run: ScheduledRun) => startDay(run),
);
