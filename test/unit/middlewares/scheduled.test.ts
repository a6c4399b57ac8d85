// scheduledHandler: a ScheduledRun reaches the use case parsed, with a logger naming the schedule; an
// event that is not one is logged and dropped without calling it; a run that throws fails the invocation.
import { scheduledHandler, type ScheduledRun } from '../../../functions/middlewares/scheduled';
import { lambdaContext, scheduledRunEvent } from '../../../local/events';
import { handler as fixtureRecordRuns } from '../../fixtures/scheduled/record-runs';

const context = () => lambdaContext('fixtureScheduled', 30_000, 256);

describe('scheduledHandler', () => {
  it('hands the parsed run to the use case', async () => {
    const seen: ScheduledRun[] = [];
    const handler = scheduledHandler(async (run, { log, lambda }) => {
      expect(typeof log.info).toBe('function');
      expect(lambda.functionName).toBe('fixtureScheduled');
      seen.push(run);
    });
    const event = scheduledRunEvent('safetyNetSync', new Date('2026-12-02T06:00:00.250Z'));
    expect(event).toEqual({ schedule: 'safetyNetSync', time: '2026-12-02T06:00:00Z' });
    await expect(handler(event, context())).resolves.toBe('ran');
    expect(seen).toEqual([{ schedule: 'safetyNetSync', time: '2026-12-02T06:00:00Z' }]);
  });

  it.each([
    ['nothing', undefined],
    ['an SQS event', { Records: [{ body: '{}' }] }],
    ['a run without a time', { schedule: 'safetyNetSync' }],
    ['a run with a time that is no ISO date', { schedule: 'safetyNetSync', time: 'yesterday' }],
    ['a run with an empty name', { schedule: '', time: '2026-12-02T06:00:00Z' }],
  ])('drops %s without calling the use case', async (_label, event) => {
    const run = jest.fn(async () => undefined);
    await expect(scheduledHandler(run)(event, context())).resolves.toBe('unreadable');
    expect(run).not.toHaveBeenCalled();
  });

  it('fails the invocation when the run throws, so it is retried', async () => {
    const handler = scheduledHandler(async () => {
      throw new Error('fan-out failed');
    });
    await expect(handler(scheduledRunEvent('x', new Date()), context())).rejects.toThrow('fan-out failed');
  });

  it('is what the fixture scheduled function of the integration suite is built on', async () => {
    delete process.env.FIXTURE_SCHEDULE_LOG;
    await expect(fixtureRecordRuns(scheduledRunEvent('fixtureSync', new Date()), context())).rejects.toThrow(
      'FIXTURE_SCHEDULE_LOG is not set',
    );
  });
});
