// A schedule on the local runtime: a fixture schedule every 0.02 minutes (1.2 s) invokes its fixture
// function through the runtime with a ScheduledRun; its failing second run is logged and the timer
// goes on; stopping the runtime stops the timer.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FunctionSpec, ScheduleSpec } from '../../functions/wiring';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { until } from '../helpers/until';

const fixtureFunction: FunctionSpec = {
  name: 'fixtureScheduled',
  entry: 'test/fixtures/scheduled/record-runs.ts',
  description: 'fixture: records each ScheduledRun',
  timeoutSeconds: 10,
  memoryMb: 256,
  access: { table: [] },
};
const fixtureSchedule: ScheduleSpec = {
  name: 'fixtureSync',
  function: 'fixtureScheduled',
  description: 'fixture schedule',
  every: { minutesSetting: 'FIXTURE_SYNC_MINUTES', defaultMinutes: 60 },
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-schedules-'));
const runsFile = path.join(dir, 'runs.jsonl');
const runs = (): { schedule: string; time: string }[] =>
  existsSync(runsFile)
    ? readFileSync(runsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { schedule: string; time: string })
    : [];
let local: TestRuntime | undefined;

afterAll(async () => {
  await local?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a fixture schedule runs its function every 0.02 minutes, past a failed run, until the runtime stops', async () => {
  const startedAt = Date.now();
  local = await startTestRuntime(
    { FIXTURE_SYNC_MINUTES: '0.02', FIXTURE_SCHEDULE_LOG: runsFile },
    { schedules: [fixtureSchedule], extraFunctions: [fixtureFunction], workers: 0 },
  );
  // the second run throws (test/fixtures/scheduled/record-runs.ts); the third still comes
  await until('three runs', async () => (runs().length >= 3 ? true : undefined), 20_000);
  const seen = runs();
  expect(seen.every((r) => r.schedule === 'fixtureSync')).toBe(true);
  const times = seen.map((r) => Date.parse(r.time));
  for (const [i, t] of times.entries()) {
    expect(t).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
    if (i > 0) expect(t).toBeGreaterThan(times[i - 1]!);
  }
  await local.stop();
  local = undefined;
  const count = runs().length;
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(runs().length).toBe(count);
});
