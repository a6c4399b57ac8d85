// Jest transform: TypeScript, and the ESM-only packages we use (@middy/core, request-filtering-agent),
// to CommonJS with esbuild, the bundler the stack already uses. (@swc/jest was the first choice, but its
// platform packages are missing from the registry these machines use, which breaks `npm ci`.)
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      loader: filename.endsWith('.ts') ? 'ts' : 'js',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'both',
      sourcefile: filename,
    });
    return { code, map };
  },
};
