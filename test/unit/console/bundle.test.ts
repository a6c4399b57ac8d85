// What the console's one script carries: the CSV preview runs the service's own detection, but the
// browser decodes text itself, so iconv-lite's code tables (490 KB minified) stay out of the bundle.
// The sizes are printed by `npm run console:build`; this test checks the contents, not a byte count.
import path from 'node:path';
import { build } from 'esbuild';
import { consoleBuildOptions, consoleRoot } from '../../../console/build';

jest.setTimeout(60_000);

describe('console bundle', () => {
  it('bundles the iconv-lite stand-in, not iconv-lite, and still the service CSV detection', async () => {
    const result = await build({
      ...consoleBuildOptions(path.join(consoleRoot, 'dist')),
      metafile: true,
      write: false,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((f) => f.includes('node_modules/iconv-lite/'))).toEqual([]);
    expect(inputs).toContain('console/src/iconv-shim.ts');
    expect(inputs).toContain('functions/domain/bulk/csv/dialect.ts');
    expect(inputs).toContain('functions/domain/bulk/csv/encoding.ts');
  });
});
