// The repository stands on its own: no code, comment or document sends a reader to a document that is
// not in it. What the contract says lives in docs/ (docs/api.md and the pages it links).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
// Names of the contract documents kept outside the repository, the section numbers of the spec, and
// paths that reach out of the checkout (the shared folder beside it, the machine it was written on).
const outsideReference = new RegExp(
  [
    'decisions\\.md',
    'service-spec',
    'STYLE\\.md',
    '\\bspec \\d',
    '\\bspec part \\d',
    '\\b[Tt]he spec\\b',
    '\\.\\./shared\\b',
    'shared/spec',
    '/work/',
  ].join('|'),
);

function trackedTextFiles(): string[] {
  const listed = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
  // this file names them to find them
  const skipped = new Set(['package-lock.json', path.relative(root, __filename)]);
  return listed.filter(
    (f) => /\.(ts|tsx|js|mjs|cjs|md|json|yaml|yml|html|css|java|sh)$/.test(f) && !skipped.has(f),
  );
}

describe('the repository', () => {
  it('refers to no document outside it', () => {
    const found: string[] = [];
    for (const file of trackedTextFiles()) {
      const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (outsideReference.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 100)}`);
      });
    }
    expect(found).toEqual([]);
  });
});
