import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '../../..');

describe('the generated client types', () => {
  it('are the committed client/schema.ts (run `npm run client:types` after changing docs/openapi.json)', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, 'bin/client-types.ts'), '--stdout'],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout).toContain('export interface paths');
    expect(readFileSync(path.join(root, 'client/schema.ts'), 'utf8')).toBe(stdout);
  });
});
