// `npm run migrate`: runs the one-off data migrations not yet recorded on the table (functions/domain/
// migrations.ts) and says what each did. Against a running `npm start`, the local data in DATA_DIR
// (the local runtime runs them itself at start), or a deployed table:
//   npm run migrate                              local data (DATA_DIR, default .mailvet)
//   npm run migrate -- --table <TableName>       a deployed stack's table (AWS credentials as usual)
import { parseArgs } from 'node:util';
import { systemClock } from '../functions/clock';
import { runPendingMigrations } from '../functions/domain/migrations';
import { connect } from '../local/connect';

const usage = 'usage: npm run migrate [-- --table <TableName>]';

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { table: { type: 'string' } }, strict: true });
  if (values.table !== undefined) {
    if (values.table === '') throw new Error(`--table needs a table name\n${usage}`);
    process.env.TABLE_NAME = values.table;
    delete process.env.MAILVET_LOCAL;
  }
  const connection = await connect({ deployed: values.table !== undefined });
  try {
    process.stderr.write(`using ${connection.target}\n`);
    for (const outcome of await runPendingMigrations(systemClock)) {
      const when = outcome.state === 'ran' ? 'ran now' : `already applied at ${outcome.appliedAt}`;
      process.stdout.write(`${outcome.name}: ${when}: ${outcome.summary}\n`);
    }
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${message.startsWith('usage') ? message : `${message}\n${usage}`}\n`);
  process.exit(1);
});
