// Builds the web console with esbuild: one script, one stylesheet, index.html, the favicon, and the
// signup-form widget (widget.js) that other sites load. The local runtime builds it in memory on its
// first request, the CDK stack builds it into its asset at synth, and `npm run console:build` writes it
// to console/dist for a look at the files.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, buildSync, type BuildOptions, type OutputFile } from 'esbuild';

export const consoleRoot = __dirname;

/** A built file: its path below the site root (no leading slash), content type and bytes. */
export interface ConsoleFile {
  path: string;
  contentType: string;
  body: Uint8Array;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * The console's Content-Security-Policy: its scripts, styles and fonts come from its own origin only
 * (all bundled), and it connects to its origin plus `connectSources` (the API and the presigned
 * storage addresses when those live elsewhere). The local runtime and CloudFront both send it.
 */
export function contentSecurityPolicy(connectSources: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${connectSources}`.trim(),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function contentTypeOf(file: string): string {
  return contentTypes[path.extname(file)] ?? 'application/octet-stream';
}

/** What the console's and the widget's bundles share: minified for these browsers, kept in memory. */
const browserBundle = {
  bundle: true,
  target: ['chrome109', 'firefox115', 'safari16'],
  platform: 'browser',
  minify: true,
  logLevel: 'silent',
  write: false,
} satisfies BuildOptions;

/**
 * The console's esbuild options (exported for the test that checks what the bundle holds). Source maps
 * only for builds on this machine: a deployed console ships none (they would publish the source).
 */
export function consoleBuildOptions(outdir: string, sourceMaps = true): BuildOptions {
  return {
    // Everything (fonts included: the system font stack) is in the bundle: no request leaves the origin.
    ...browserBundle,
    entryPoints: { app: path.join(consoleRoot, 'src/main.ts') },
    outdir,
    format: 'esm',
    sourcemap: sourceMaps ? 'linked' : false,
    // The bulk page reads CSV samples with the service's own dialect detection, which works on Buffers.
    inject: [path.join(consoleRoot, 'src/buffer-shim.ts')],
    // ...detects encodings with Node's `isUtf8`, which the browser gets from a TextDecoder, and decodes
    // cells with iconv-lite, whose tables (490 KB minified) the browser's TextDecoder replaces.
    alias: {
      'node:buffer': path.join(consoleRoot, 'src/node-buffer-shim.ts'),
      'iconv-lite': path.join(consoleRoot, 'src/iconv-shim.ts'),
    },
    legalComments: 'linked',
  };
}

/**
 * The signup-form widget, /widget.js (console/src/widget/widget.ts): its own small script, without the
 * console's shims, loaded by other sites' pages with a publishable key.
 */
export function widgetBuildOptions(outdir: string): BuildOptions {
  return {
    ...browserBundle,
    entryPoints: { widget: path.join(consoleRoot, 'src/widget/widget.ts') },
    outdir,
    format: 'iife',
  };
}

function collect(outputs: OutputFile[], outdir: string): ConsoleFile[] {
  const files: ConsoleFile[] = outputs.map((o) => ({
    path: path.relative(outdir, o.path).split(path.sep).join('/'),
    contentType: contentTypeOf(o.path),
    body: o.contents,
  }));
  const html = readFileSync(path.join(consoleRoot, 'index.html'));
  files.push({ path: 'index.html', contentType: contentTypes['.html']!, body: html });
  // Browsers ask for /favicon.ico on their own: an envelope, so the tab is not left blank (or a 404).
  const icon = readFileSync(path.join(consoleRoot, 'favicon.ico'));
  files.push({ path: 'favicon.ico', contentType: contentTypes['.ico']!, body: icon });
  return files;
}

/** The console's files, built in memory. */
export async function buildConsole(): Promise<ConsoleFile[]> {
  const outdir = path.join(consoleRoot, 'dist');
  const [result, widget] = await Promise.all([
    build(consoleBuildOptions(outdir)),
    build(widgetBuildOptions(outdir)),
  ]);
  return collect([...(result.outputFiles ?? []), ...(widget.outputFiles ?? [])], outdir);
}

/**
 * The deployed console: synchronously (CDK's local bundling runs synchronously), without source maps,
 * written to `outdir`.
 */
export function buildConsoleSyncTo(outdir: string): void {
  const result = buildSync(consoleBuildOptions(outdir, false));
  const widget = buildSync(widgetBuildOptions(outdir));
  for (const file of collect([...(result.outputFiles ?? []), ...(widget.outputFiles ?? [])], outdir)) {
    const target = path.join(outdir, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.body);
  }
}

/** `npm run console:build`: writes console/dist. */
export async function writeConsole(outdir = path.join(consoleRoot, 'dist')): Promise<ConsoleFile[]> {
  const files = await buildConsole();
  for (const file of files) {
    const target = path.join(outdir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.body);
  }
  return files;
}

if (require.main === module) {
  writeConsole().then(
    (files) => {
      for (const f of files) process.stdout.write(`console/dist/${f.path}  ${f.body.length} bytes\n`);
    },
    (error: unknown) => {
      process.stderr.write(
        `console build failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
