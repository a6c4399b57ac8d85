// The kept synthesis of the functions' policies: synthesized once per content of the sources, again as
// soon as any of them changes, and read back without synthesizing meanwhile.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedPolicies, synthesisKey } from '../../../local/iam/policy-cache';
import type { FunctionPolicies } from '../../../local/iam/evaluate';
import { localResources } from '../../../local/runtime';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-policy-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A repository with one file in each kind of source the synthesis reads. */
function repository(): string {
  const root = path.join(dir, 'repo');
  for (const sub of ['lib', 'functions/store', 'local/iam'])
    mkdirSync(path.join(root, sub), { recursive: true });
  writeFileSync(path.join(root, 'lib/api-stack.ts'), 'export const grants = 1;\n');
  writeFileSync(path.join(root, 'functions/store/table.ts'), 'export const table = "t";\n');
  writeFileSync(path.join(root, 'local/iam/template-policies.ts'), 'export {};\n');
  writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
  return root;
}

describe('cachedPolicies', () => {
  it('synthesizes once for unchanged sources, and again when one changes', () => {
    const root = repository();
    const cacheDir = path.join(dir, 'cache');
    let syntheses = 0;
    const synthesize = (): FunctionPolicies => {
      syntheses++;
      return { validateEmail: [{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: `r${syntheses}` }] };
    };
    const first = cachedPolicies(localResources, { cacheDir, root, synthesize });
    expect(cachedPolicies(localResources, { cacheDir, root, synthesize })).toEqual(first);
    expect(syntheses).toBe(1);

    writeFileSync(path.join(root, 'functions/store/table.ts'), 'export const table = "u";\n');
    const changed = cachedPolicies(localResources, { cacheDir, root, synthesize });
    expect(syntheses).toBe(2);
    expect(changed).not.toEqual(first);
    // only the entry of the current sources is kept
    expect(readdirSync(cacheDir)).toHaveLength(1);
  });

  it('names an entry by every source file, the lock file and the local resource names', () => {
    const root = repository();
    for (const [file, text] of [
      ['lib/api-stack.ts', 'export const grants = 2;\n'],
      ['local/iam/template-policies.ts', 'export const x = 1;\n'],
      ['package-lock.json', '{"lockfileVersion":3,"packages":{}}\n'],
      ['lib/new-construct.ts', 'export {};\n'],
    ] as const) {
      const before = synthesisKey(localResources, root);
      writeFileSync(path.join(root, file), text);
      expect(synthesisKey(localResources, root)).not.toBe(before);
    }
    expect(synthesisKey({ ...localResources, table: 'other' }, root)).not.toBe(
      synthesisKey(localResources, root),
    );
    expect(synthesisKey(localResources, root)).toBe(synthesisKey(localResources, root));
  });
});
