// A local S3 in a child process, for the benches that measure the functions' S3 requests
// (bench/chunk-io.ts, bench/s3-requests.ts): this process's CPU is then the client's alone, and the
// child's (processThreadsCpu in ./thread-cpu) is the local S3's side, as the runtime's main thread pays it.
// The bench's own file runs the child: `--serve DIR` starts the server (runAsBenchOrChild).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface LocalS3ChildOptions {
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** As the runtime configures it (bench/s3-requests.ts), or none. */
  corsOrigins?: string[];
}

/** The child's side: the local S3 on an ephemeral port, its URL on stdout, until stdin closes. */
async function serve(dataDir: string, options: LocalS3ChildOptions): Promise<void> {
  const { startLocalS3 } = await import('../local/s3/local-s3');
  const server = await startLocalS3({
    dataDir,
    buckets: [options.bucket],
    ...options.credentials,
    fsync: false,
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
  });
  process.stdout.write(`${server.url}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => void server.close().then(() => process.exit(0)));
}

/**
 * Starts `script` (the bench's own file) as the local S3's child on `dataDir`; `--server-profile DIR`
 * on this process's command line writes the child's CPU profile into DIR.
 */
function startLocalS3Child(script: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const profileAt = process.argv.indexOf('--server-profile');
  const profile = profileAt < 0 ? [] : ['--cpu-prof', '--cpu-prof-dir', process.argv[profileAt + 1]!];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script, '--serve', dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (url) => resolve({ child, url }));
    child.once('exit', (code) => reject(new Error(`the local S3 exited with ${code}`)));
  });
}

/**
 * Runs `body` with the local S3 child started on a fresh directory and this process's functions pointed
 * at it (endpoint, bucket, credentials, the tests' environment); then stops the child and removes the
 * directory.
 */
export async function withLocalS3Child(
  script: string,
  options: LocalS3ChildOptions,
  body: (child: ChildProcess) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `mailvet-${options.bucket}-`));
  const { child, url } = await startLocalS3Child(script, dataDir);
  try {
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: url,
      BUCKET_NAME: options.bucket,
      AWS_ACCESS_KEY_ID: options.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
    });
    await import('../test/helpers/env');
    await body(child);
  } finally {
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs the bench, or, started with `--serve DIR`, the local S3 child it asked for. */
export function runAsBenchOrChild(bench: () => Promise<void>, options: LocalS3ChildOptions): void {
  const serveAt = process.argv.indexOf('--serve');
  (serveAt >= 0 ? serve(process.argv[serveAt + 1]!, options) : bench()).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
