// `npm run lint:exports`: fails on exports nothing imports (ts-unused-exports over tsconfig.json, types
// allowed). One kind of finding is expected and dropped here: `handler` of a file in functions/handlers/,
// the Lambda entry point, which functions/wiring.ts names by file and the CDK stack and the local runtime
// load by name, never by an import; and the default export of a Jest global set-up or teardown module,
// which jest.config.js names by path.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

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
// Jest's global set-up and teardown modules, which jest.config.js names by path.
const jestHooks = new Set(
  [
    ...readFileSync(path.join(root, 'jest.config.js'), 'utf8').matchAll(
      /global(?:Setup|Teardown): '<rootDir>\/([^']+)'/g,
    ),
  ].map((m) => m[1]!),
);
const jestHook = (f: { file: string; name?: string }) => jestHooks.has(f.file) && f.name === 'default';
const reported = findings.filter((f) => !entryPoint(f) && !jestHook(f));
for (const f of reported)
  process.stdout.write(`${f.file}:${f.line}: ${f.name} is exported but never imported\n`);
process.exit(reported.length === 0 ? 0 : 1);
