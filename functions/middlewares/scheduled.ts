// The one entry of every scheduled function: parse the ScheduledRun the schedule sends (EventBridge
// Scheduler in AWS, the local runtime's timer locally), hand it to the use case with a logger naming the
// schedule and its time. A scheduled run only fans out (one message per company or mailbox); the work
// happens in queue consumers, so one slow tenant never holds the rest.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { Logger, logger } from '../log';
import { flushCommandMetrics } from '../store/dynamodb';

/** What each invocation of a schedule receives: its name, and the ISO time it was scheduled for. */
export const scheduledRunSchema = z.object({
  schedule: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
});
export type ScheduledRun = z.infer<typeof scheduledRunSchema>;

export interface ScheduledContext {
  /** The function's logger with the schedule and the scheduled time. */
  log: Logger;
  /** The Lambda context (its remaining time, for a fan-out that must stop before the timeout). */
  lambda: Context;
}

export type ScheduledOutcome = 'ran' | 'unreadable';

/**
 * `export const handler = scheduledHandler(async (run, { log }) => {...})`. An event that is not a
 * ScheduledRun can never succeed: it is logged and dropped (no retry). A run that throws is logged and
 * thrown again, so the invocation fails and is retried (Lambda's asynchronous retries in AWS).
 */
export function scheduledHandler(
  run: (run: ScheduledRun, context: ScheduledContext) => Promise<void>,
): middy.MiddyfiedHandler<unknown, ScheduledOutcome, Error, Context> {
  return middy<unknown, ScheduledOutcome, Error, Context>().handler(async (event, lambda) => {
    const functionLog = logger.child({ function: lambda.functionName });
    const parsed = scheduledRunSchema.safeParse(event);
    if (!parsed.success) {
      functionLog.error('unreadable scheduled event; dropped', undefined, {
        problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      });
      return 'unreadable';
    }
    const log = functionLog.child({ schedule: parsed.data.schedule, scheduledTime: parsed.data.time });
    try {
      await run(parsed.data, { log, lambda });
      log.info('scheduled run done');
      return 'ran';
    } catch (error) {
      log.error('scheduled run failed', error);
      throw error;
    } finally {
      flushCommandMetrics();
    }
  });
}
