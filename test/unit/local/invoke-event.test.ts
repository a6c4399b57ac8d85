// The event of `npm run invoke`: the --event file, else events/<function>.json, else a scheduled
// function's ScheduledRun of now; a function with neither names the file it looked for.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScheduleSpec } from '../../../functions/wiring';
import { invokeEvent } from '../../../local/invoke-event';

const schedules: ScheduleSpec[] = [
  {
    name: 'fixtureSync',
    function: 'fixtureScheduled',
    description: 'fixture',
    every: { minutesSetting: 'FIXTURE_SYNC_MINUTES', defaultMinutes: 15 },
  },
];
const now = new Date('2026-12-02T06:15:00.400Z');
let eventsDir: string;
beforeEach(() => {
  eventsDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-events-'));
});
afterEach(() => rmSync(eventsDir, { recursive: true, force: true }));

test('a scheduled function without an event file runs as if its schedule fired now', () => {
  expect(invokeEvent('fixtureScheduled', ['fixtureScheduled'], { eventsDir, schedules, now })).toEqual({
    schedule: 'fixtureSync',
    time: '2026-12-02T06:15:00Z',
  });
});

test('events/<function>.json wins, and --event wins over it', () => {
  writeFileSync(
    path.join(eventsDir, 'fixtureScheduled.json'),
    '{"schedule":"fixtureSync","time":"2026-01-01T00:00:00Z"}',
  );
  expect(invokeEvent('fixtureScheduled', ['fixtureScheduled'], { eventsDir, schedules, now })).toEqual({
    schedule: 'fixtureSync',
    time: '2026-01-01T00:00:00Z',
  });
  const other = path.join(eventsDir, 'other.json');
  writeFileSync(other, '{"schedule":"other","time":"2026-02-02T00:00:00Z"}');
  expect(
    invokeEvent('fixtureScheduled', ['fixtureScheduled', '--event', other], { eventsDir, schedules, now }),
  ).toEqual({ schedule: 'other', time: '2026-02-02T00:00:00Z' });
});

test('a missing --event file, or an unscheduled function without one, names what it looked for', () => {
  expect(() =>
    invokeEvent('fixtureScheduled', ['fixtureScheduled', '--event', '/nope.json'], {
      eventsDir,
      schedules,
      now,
    }),
  ).toThrow('No event file: /nope.json');
  expect(() => invokeEvent('getJob', ['getJob'], { eventsDir, schedules, now })).toThrow(
    `No event file: ${path.join(eventsDir, 'getJob.json')}`,
  );
});
