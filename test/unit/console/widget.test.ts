// The signup-form widget that other sites load: small (under 10 KB gzipped) and made of its own source
// alone, no dependency and none of the console's shims.
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { consoleRoot, widgetBuildOptions } from '../../../console/build';

jest.setTimeout(60_000);

describe('widget.js', () => {
  it('is one script under 10 KB gzipped, built from the widget source alone', async () => {
    const result = await build({ ...widgetBuildOptions(path.join(consoleRoot, 'dist')), metafile: true });
    expect(Object.keys(result.metafile.inputs)).toEqual(['console/src/widget/widget.ts']);
    const files = result.outputFiles ?? [];
    expect(files.map((f) => path.basename(f.path))).toEqual(['widget.js']);
    const gzipped = gzipSync(files[0]!.contents).length;
    expect(gzipped).toBeLessThan(10 * 1024);
    // A classic script (loaded with a plain <script src>), not a module.
    expect(files[0]!.text).not.toMatch(/\bimport\s*[{(*"']|\bexport\s*[{*]/);
  });
});
