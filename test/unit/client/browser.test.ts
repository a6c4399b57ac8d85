// The web console bundles client/index.ts for the browser: it must not reach any Node module.
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(__dirname, '../../..');

describe('the core client', () => {
  it('bundles for the browser without a Node module', async () => {
    const result = await build({
      entryPoints: [path.join(root, 'client/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toEqual(expect.arrayContaining(['client/index.ts', 'client/http.ts', 'client/upload.ts']));
    expect(inputs.filter((input) => input.startsWith('node:') || input.includes('client/node.ts'))).toEqual(
      [],
    );
    expect(result.outputFiles[0]!.text).toContain('x-api-key');
  });

  it('is refused for the browser when a Node module sneaks in (the check above can fail)', async () => {
    await expect(
      build({
        entryPoints: [path.join(root, 'client/node.ts')],
        bundle: true,
        platform: 'browser',
        write: false,
        logLevel: 'silent',
      }),
    ).rejects.toThrow(/node:fs|Could not resolve/);
  });
});
