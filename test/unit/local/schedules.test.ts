// The local runtime's schedule timers: the period from the runtime's env (decimals allowed) or the
// spec's default, the daily hour's next occurrence, runs that fail logged and the timer going on, no
// doubled run while one is still going, and nothing running after stop().
import type { ScheduleSpec } from '../../../functions/wiring';
import { localTiming, startScheduleTimers } from '../../../local/schedules';

const every = (minutes: number): ScheduleSpec => ({
  name: 'fixtureSync',
  function: 'fixtureScheduled',
  description: 'fixture',
  every: { minutesSetting: 'FIXTURE_SYNC_MINUTES', defaultMinutes: minutes },
});
const daily: ScheduleSpec = {
  name: 'fixtureDigest',
  function: 'fixtureScheduled',
  description: 'fixture',
  every: { dailyHourUtcSetting: 'FIXTURE_DIGEST_HOUR_UTC', defaultHour: 6 },
};
const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('localTiming', () => {
  const now = Date.UTC(2026, 11, 2, 7, 30);
  it('reads minutes from the env, decimals allowed, else the default', () => {
    expect(localTiming(every(15), {}, now)).toEqual({ first: now + 15 * 60_000, period: 15 * 60_000 });
    expect(localTiming(every(15), { FIXTURE_SYNC_MINUTES: '0.1' }, now).period).toBe(6000);
    expect(localTiming(every(15), { FIXTURE_SYNC_MINUTES: ' ' }, now).period).toBe(15 * 60_000);
  });
  it('runs a daily schedule at its next hour UTC', () => {
    expect(localTiming(daily, {}, now)).toEqual({ first: Date.UTC(2026, 11, 3, 6), period: 86_400_000 });
    expect(localTiming(daily, { FIXTURE_DIGEST_HOUR_UTC: '8' }, now).first).toBe(Date.UTC(2026, 11, 2, 8));
  });
  it('refuses an unusable setting, naming it', () => {
    expect(() => localTiming(every(15), { FIXTURE_SYNC_MINUTES: 'soon' }, now)).toThrow(
      /FIXTURE_SYNC_MINUTES/,
    );
    expect(() => localTiming(every(15), { FIXTURE_SYNC_MINUTES: '0' }, now)).toThrow(/more than 0/);
    expect(() => localTiming(daily, { FIXTURE_DIGEST_HOUR_UTC: '24' }, now)).toThrow(
      /FIXTURE_DIGEST_HOUR_UTC/,
    );
    expect(() => localTiming(daily, { FIXTURE_DIGEST_HOUR_UTC: '6.5' }, now)).toThrow(/whole hour/);
  });
});

describe('startScheduleTimers', () => {
  it('invokes the function with a ScheduledRun every period; a failed run does not stop the timer', async () => {
    const events: unknown[] = [];
    const timers = startScheduleTimers({
      schedules: [every(15)],
      env: { FIXTURE_SYNC_MINUTES: '0.001' }, // 60 ms
      invoke: async (name, event) => {
        expect(name).toBe('fixtureScheduled');
        events.push(event);
        if (events.length === 1) throw new Error('first run fails');
      },
    });
    await until(() => events.length >= 3);
    await timers.stop();
    const count = events.length;
    for (const event of events)
      expect(event).toEqual({
        schedule: 'fixtureSync',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
    // nothing after stop()
    await new Promise((r) => setTimeout(r, 200));
    expect(events.length).toBe(count);
  });

  it('does not start a run while the previous one is still going, and stop() waits for it', async () => {
    let active = 0;
    let most = 0;
    let finished = 0;
    const timers = startScheduleTimers({
      schedules: [every(15)],
      env: { FIXTURE_SYNC_MINUTES: '0.0005' }, // 30 ms
      invoke: async () => {
        active++;
        most = Math.max(most, active);
        await new Promise((r) => setTimeout(r, 150));
        active--;
        finished++;
      },
    });
    await until(() => timers.runs('fixtureSync') >= 2);
    await timers.stop();
    expect(most).toBe(1);
    expect(active).toBe(0);
    expect(finished).toBe(timers.runs('fixtureSync'));
  });

  it('throws at start on a bad setting, before any timer', () => {
    expect(() =>
      startScheduleTimers({
        schedules: [every(15)],
        env: { FIXTURE_SYNC_MINUTES: '-1' },
        invoke: async () => undefined,
      }),
    ).toThrow(/FIXTURE_SYNC_MINUTES/);
  });
});
