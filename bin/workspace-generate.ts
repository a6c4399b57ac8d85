// `npm run workspace:generate -- --company <id> --mailboxes N --days D --users U
//   --safety-net-mailboxes M --sequences S [--seed n] [--out file.json]`
// Generates a large realistic workspace and imports it (or writes it to --out as an import file).
// The company must exist (the demo companies do; seats are not enforced on imports).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { generateWorkspace } from '../functions/domain/workspace/generate';
import { importWorkspace } from '../functions/domain/workspace/import';
import { connect } from '../local/connect';

const usage =
  'usage: npm run workspace:generate -- --company <id> [--mailboxes 100] [--days 400] [--users 50] ' +
  '[--safety-net-mailboxes 100] [--sequences 200] [--seed 42] [--out file.json]';

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      company: { type: 'string' },
      mailboxes: { type: 'string', default: '100' },
      days: { type: 'string', default: '400' },
      users: { type: 'string', default: '50' },
      'safety-net-mailboxes': { type: 'string', default: '100' },
      sequences: { type: 'string', default: '200' },
      seed: { type: 'string', default: '42' },
      out: { type: 'string' },
    },
  });
  const count = (name: keyof typeof values) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer\n${usage}`);
    return n;
  };
  if (!values.company) throw new Error(usage);
  const data = generateWorkspace({
    companyId: values.company,
    mailboxes: count('mailboxes'),
    days: count('days'),
    users: count('users'),
    safetyNetMailboxes: count('safety-net-mailboxes'),
    sequences: count('sequences'),
    seed: count('seed'),
  });
  if (values.out) {
    writeFileSync(values.out, JSON.stringify(data));
    process.stderr.write(`wrote ${values.out}\n`);
    return;
  }
  const connection = await connect();
  try {
    process.stderr.write(`generating into ${connection.target}\n`);
    const started = Date.now();
    const summary = await importWorkspace(data);
    process.stdout.write(
      JSON.stringify({ ...summary, seconds: (Date.now() - started) / 1000 }, null, 2) + '\n',
    );
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
