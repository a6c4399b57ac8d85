// `npm run lint:exports`: fails on exports nothing imports (ts-unused-exports over tsconfig.json, types
// allowed). Two kinds of finding are expected and dropped here, each for its reason:
// - `handler` of a file in functions/handlers/: the Lambda entry point, which functions/wiring.ts names
//   by file and the CDK stack and the local runtime load by name, never by an import;
// - the files in `notYetTriaged` below: findings in code other branches own, reported to the lead for
//   their owners to delete. Shrink that list; never grow it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const notYetTriaged = [
  'functions/domain/bulk/csv/dialect.ts',
  'functions/domain/bulk/csv/encoding.ts',
  'functions/domain/bulk/csv/row-tokenizer.ts',
  'functions/domain/validation/classify.ts',
  'functions/domain/validation/dns-lookup.ts',
  'functions/domain/validation/flight-cache.ts',
  'functions/domain/validation/lists.ts',
  'functions/domain/validation/smtp-probe.ts',
  'functions/domain/validation/typos.ts',
  'functions/domain/validation/verdicts.ts',
  'local/api-gateway.ts',
  'local/docs-site.ts',
  'local/dynamodb.ts',
  'local/s3/local-s3.ts',
  'local/sqs/poller.ts',
];

const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'node_modules', '.bin', 'ts-unused-exports');
const run = spawnSync(bin, ['tsconfig.json', '--allowUnusedTypes', '--showLineNumber'], {
  cwd: root,
  encoding: 'utf8',
});
if (run.error) throw run.error;

/** One line per unused export: `<absolute path>[line,column]: <name>`. */
const findings = run.stdout
  .split('\n')
  .map((line) => /^(.+?)\[(\d+),\d+\]: (.+)$/.exec(line))
  .filter((match): match is RegExpExecArray => match !== null)
  .map(([, file, line, name]) => ({
    file: path.relative(root, file!).split(path.sep).join('/'),
    line,
    name,
  }));
if (findings.length === 0 && run.status !== 0) {
  process.stderr.write(run.stdout + run.stderr);
  process.exit(run.status ?? 1);
}

const entryPoint = (f: { file: string; name?: string }) =>
  /^functions\/handlers\/[^/]+\.ts$/.test(f.file) && f.name === 'handler';
const reported = findings.filter((f) => !entryPoint(f) && !notYetTriaged.includes(f.file));
for (const f of reported)
  process.stdout.write(`${f.file}:${f.line}: ${f.name} is exported but never imported\n`);
process.exit(reported.length === 0 ? 0 : 1);
