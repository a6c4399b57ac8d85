// One-off data migrations, in the order they run: `npm run migrate` runs the pending ones against the
// local data or a deployed table, and the local runtime runs them at start. Each is idempotent (a
// second run finds nothing to do) and is recorded once it finished, so a run that stopped half way is
// simply run again.
import type { Clock } from '../clock';
import { backfillJobCounts } from '../store/jobs/count-backfill';
import { readAppliedMigration, recordAppliedMigration } from '../store/migrations';
import { jobLimits } from './bulk/limits';

interface Migration {
  /** Never renamed once released: the table records migrations by name. */
  name: string;
  /** Does the work; a line saying what it did. */
  run(): Promise<string>;
}

const migrations: readonly Migration[] = [
  {
    name: 'job-count-backfill',
    async run() {
      const { found, counted } = await backfillJobCounts(jobLimits);
      return `${counted} of ${found} jobs without a count day added to the job counts`;
    },
  },
];

export interface MigrationOutcome {
  name: string;
  /** `ran` now, or `applied` by an earlier run. */
  state: 'ran' | 'applied';
  appliedAt: string;
  summary: string;
}

/** Runs every migration not recorded on the table yet, in order; what each did or had done. */
export async function runPendingMigrations(
  clock: Clock,
  all: readonly Migration[] = migrations,
): Promise<MigrationOutcome[]> {
  const outcomes: MigrationOutcome[] = [];
  for (const migration of all) {
    const applied = await readAppliedMigration(migration.name);
    if (applied) {
      outcomes.push({ ...applied, state: 'applied' });
      continue;
    }
    const summary = await migration.run();
    const record = { name: migration.name, appliedAt: clock().toISOString(), summary };
    // A run at the same time recorded it first: both did the (idempotent) work, its record stays.
    await recordAppliedMigration(record);
    outcomes.push({ ...record, state: 'ran' });
  }
  return outcomes;
}
