// The one clock: every piece of code that needs the current time takes a `Clock`, so tests can fix it.
// Rate schedules, cache ages and deadlines read it too (`clock().getTime()`): they are compared with
// dates, TTL epochs or other processes' schedules, so they are wall-clock time, not a second clock.

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/**
 * How long something took, in ms, for logs and metrics only. Monotonic (performance.now()), so a
 * wall-clock step cannot make a duration negative; its readings are not dates and never meet a Clock's.
 */
export type Stopwatch = () => number;

export const systemStopwatch: Stopwatch = () => performance.now();
