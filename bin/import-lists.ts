// `npm run lists:import -- --kind dead|complainer [--company <id>] <file>`: loads a known-dead or
// known-complainer list (global, or one company's) into the table the validation engine reads.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dynamoDb, tableName } from '../functions/clients/dynamodb';
import { GLOBAL_SCOPE, LIST_KINDS, type ListKind } from '../functions/store/keys';
import { importKnownAddresses, parseListFile } from '../functions/domain/validation/list-import';
import { knownAddressWriter } from '../functions/store/known-lists';
import { connect } from '../local/connect';

const usage = `usage:
  npm run lists:import -- --kind dead|complainer [--company <companyId>] <file>
  (one address per line, or CSV with the address in the first column; without --company the list is global)`;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { kind: { type: 'string' }, company: { type: 'string' } },
  });
  const kind = values.kind as ListKind | undefined;
  const file = positionals[0];
  if (!kind || !LIST_KINDS.includes(kind) || !file || positionals.length !== 1) throw new Error(usage);
  const emails = parseListFile(readFileSync(file, 'utf8'));
  const connection = await connect();
  try {
    process.stderr.write(`using ${connection.target}\n`);
    const scope = values.company ?? GLOBAL_SCOPE;
    const summary = await importKnownAddresses(knownAddressWriter(dynamoDb(), tableName()), {
      kind,
      scope,
      emails,
    });
    process.stdout.write(
      JSON.stringify({ imported: summary.imported, kind, scope, skipped: summary.skipped.length }, null, 2) +
        '\n',
    );
    for (const s of summary.skipped.slice(0, 20)) process.stderr.write(`skipped (not an address): ${s}\n`);
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
