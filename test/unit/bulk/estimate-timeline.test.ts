// The estimate's timeline: stopwatch readings per step, as its log line and its diagnostics channel give them.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  EstimateTimeline,
  estimateTimelineChannelName,
  type EstimateTimelineMessage,
} from '../../../functions/domain/bulk/estimate/timeline';

describe('EstimateTimeline', () => {
  it('gives each step in whole ms since the upload event, in the order the steps were marked', () => {
    const readings = [110.4, 250.6, 240.2];
    const timeline = new EstimateTimeline('j1', 100, () => readings.shift()!);
    timeline.mark('processing');
    timeline.mark('classified');
    timeline.mark('reserved');
    expect(timeline.sinceInvoked()).toEqual({ processing: 10, classified: 151, reserved: 140 });
  });

  it('publishes its marks to a subscriber of the channel', () => {
    const seen: EstimateTimelineMessage[] = [];
    const listener = (message: unknown) => seen.push(message as EstimateTimelineMessage);
    subscribe(estimateTimelineChannelName, listener);
    try {
      const timeline = new EstimateTimeline('j2', 5, () => 7);
      timeline.mark('completed');
      timeline.publish();
    } finally {
      unsubscribe(estimateTimelineChannelName, listener);
    }
    expect(seen).toEqual([
      {
        jobId: 'j2',
        marks: [
          { step: 'invoked', at: 5 },
          { step: 'completed', at: 7 },
        ],
      },
    ]);
  });
});
