// Where an estimate's time goes: a stopwatch reading at each step of its processing, written in its
// completion log line and published on a diagnostics channel, which costs nothing without a subscriber
// (bench/bulk-estimate.ts subscribes and prints them beside what its client saw).
import { channel } from 'node:diagnostics_channel';
import { systemStopwatch, type Stopwatch } from '../../../clock';

/**
 * The steps, in the order they usually end: the upload event handled (`invoked`), the job moved to
 * processing, the upload's GET answered, the scan done, the sampled rows reserved in usage (while
 * the sample is classified), the sample classified, the job written completed (what a poll sees) and
 * the usage count and slot release after it.
 */
export type EstimateStep =
  'invoked' | 'processing' | 'opened' | 'scanned' | 'reserved' | 'classified' | 'completed' | 'finished';

export interface EstimateTimelineMessage {
  jobId: string;
  /** Stopwatch readings (ms, this thread's systemStopwatch), in the order they were taken. */
  marks: { step: EstimateStep; at: number }[];
}

/** Subscribe with diagnostics_channel.subscribe(estimateTimelineChannelName, ...). */
export const estimateTimelineChannelName = 'mailvet:estimate-timeline';
const timelineChannel = channel(estimateTimelineChannelName);

export class EstimateTimeline {
  private readonly marks: EstimateTimelineMessage['marks'] = [];

  /** @param invokedAt the stopwatch reading when the upload event's handling began */
  constructor(
    private readonly jobId: string,
    invokedAt: number,
    private readonly stopwatch: Stopwatch = systemStopwatch,
  ) {
    this.marks.push({ step: 'invoked', at: invokedAt });
  }

  mark(step: EstimateStep): void {
    this.marks.push({ step, at: this.stopwatch() });
  }

  /** Each step's time since `invoked`, whole ms, for a log line. */
  sinceInvoked(): Partial<Record<EstimateStep, number>> {
    const start = this.marks[0]!.at;
    const out: Partial<Record<EstimateStep, number>> = {};
    for (const { step, at } of this.marks.slice(1)) out[step] = Math.round(at - start);
    return out;
  }

  publish(): void {
    if (timelineChannel.hasSubscribers)
      timelineChannel.publish({
        jobId: this.jobId,
        marks: [...this.marks],
      } satisfies EstimateTimelineMessage);
  }
}
