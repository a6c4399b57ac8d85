// Schedule placementDaily (PLACEMENT_HOUR_UTC): fans the day's placement tests out, one send message
// and one (delayed) check message per mailbox of the network; the queues' consumers do the work.
import { startPlacementDay } from '../domain/mailboxes/placement';
import { utcDate } from '../domain/workspace/dates';
import type { Logger } from '../log';
import { scheduledHandler, type ScheduledRun } from '../middlewares/scheduled';

/** The day of the run is the UTC date of its scheduled time. */
export async function startDay(run: ScheduledRun, log: Logger): Promise<{ day: string; mailboxes: number }> {
  const day = utcDate(new Date(run.time));
  const plan = await startPlacementDay(day, log);
  return { day, mailboxes: plan.sends.length };
}

export const handler = scheduledHandler(async (run, { log }) => {
  await startDay(run, log);
});
