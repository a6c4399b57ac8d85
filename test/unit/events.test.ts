import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { scheduledRunSchema } from '../../functions/middlewares/scheduled';
import { functions, schedules } from '../../functions/wiring';

const root = path.resolve(__dirname, '../..');

describe('sample events for npm run invoke', () => {
  it.each(functions.map((f) => [f.name]))('events/%s.json exists and is JSON', (name) => {
    const file = path.join(root, 'events', `${name}.json`);
    expect(existsSync(file)).toBe(true);
    expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
  });
});

describe('sample events of scheduled functions', () => {
  // test.each needs a row; with no schedule in the wiring yet this checks the schema alone.
  const rows = schedules.map((s) => [s.function, s.name]);
  it.each(rows.length ? rows : [['', '']])('events/%s.json is a ScheduledRun of %s', (fn, name) => {
    if (fn === '') {
      expect(scheduledRunSchema.safeParse({ schedule: 'x', time: '2026-01-01T06:00:00Z' }).success).toBe(
        true,
      );
      return;
    }
    const event = JSON.parse(readFileSync(path.join(root, 'events', `${fn}.json`), 'utf8')) as unknown;
    const run = scheduledRunSchema.parse(event);
    expect(schedules.filter((s) => s.function === fn).map((s) => s.name)).toContain(run.schedule);
    expect(name).toBeTruthy();
  });
});
