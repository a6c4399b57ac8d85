// `npm run workspace:import -- <file.json>`: upsert a workspace file (format in docs/workspace.md)
// into the running local runtime, a deployed table (TABLE_NAME and AWS credentials in the
// environment), or the local data directory. Idempotent: importing the same file twice changes nothing.
import { readFileSync } from 'node:fs';
import { importWorkspace } from '../functions/domain/workspace/import';
import { workspaceImportSchema } from '../functions/domain/workspace/import-schema';
import { connect } from '../local/connect';

async function main(argv: string[]): Promise<void> {
  const file = argv.find((arg) => !arg.startsWith('-'));
  if (!file) throw new Error('usage: npm run workspace:import -- <file.json>');
  const parsed = workspaceImportSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 20).map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`${file} is not a valid workspace file:\n${problems.join('\n')}`);
  }
  const connection = await connect();
  try {
    process.stderr.write(`importing into ${connection.target}\n`);
    const summary = await importWorkspace(parsed.data);
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
