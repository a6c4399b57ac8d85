// The one clock: every piece of code that needs the current time takes a `Clock`, so tests can fix it.

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
