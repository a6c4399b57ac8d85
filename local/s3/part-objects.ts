// Multipart objects kept as their parts. CompleteMultipartUpload hard-links the upload's part files into
// a directory of their own and writes, where the object's file would be, a small manifest naming them;
// a GET or a range GET streams the parts in order. Completing a 110 MB results file is then a few links
// and a small write instead of rewriting 110 MB.
//
//   <bucket>/<key>._S3rver_object        the manifest (MANIFEST_MAGIC, then JSON)
//   <bucket>/._S3rver_multipart/<dir>/   the part files 1..N, and `key` (whose object this is)
//
// A manifest is recognised by its first bytes; only an object whose ETag has S3's multipart form
// ("<md5>-<N>") or whose ETag is not yet recorded is read for them, so plain objects cost nothing more.
// The parts directory of an object that was replaced or deleted is removed after the replacement;
// one left over by a crash or a race is removed at the next start (removeOrphanParts).
import { randomBytes } from 'node:crypto';
import { close, open as openFd, read, type Stats } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { replaceFile, syncDirectory } from './flush';
import { READ_PIECE_BYTES, type ReadBufferPool } from './read-buffers';

/** Starts every manifest: a NUL byte first, which no CSV or JSON object begins with. */
const MANIFEST_MAGIC = Buffer.from('\0mailvet local S3 multipart object v1\n');
/** S3's ETag of a multipart object: the MD5 of the parts' MD5s, a dash, the part count. */
const MULTIPART_ETAG = /^[0-9a-f]{32}-\d+$/;
/** The directory of a bucket that holds the parts of its multipart objects (beside s3rver's uploads). */
const PARTS_DIR = '._S3rver_multipart';

export interface Manifest {
  /** The parts' directory, a name inside the bucket's PARTS_DIR. */
  dir: string;
  /** Part sizes in order; part n (from 1) is the file `n`. */
  parts: number[];
  bytes: number;
  etag: string;
}

export function partsRoot(bucketPath: string): string {
  return path.join(bucketPath, PARTS_DIR);
}

/** Whether a stored ETag (or none yet) may belong to a manifest, so the object's file is worth a look. */
export function mayBeManifest(etag: string | undefined): boolean {
  return etag === undefined || MULTIPART_ETAG.test(etag);
}

const readFd = promisify(read);

/**
 * The manifest in the open object file `fd`, or undefined for a plain object. Read from the descriptor
 * a GET answers from, the manifest's size and ETag are always those of the version it serves.
 */
export async function readManifestFrom(fd: number, fileBytes: number): Promise<Manifest | undefined> {
  if (fileBytes < MANIFEST_MAGIC.length) return undefined;
  const head = Buffer.alloc(MANIFEST_MAGIC.length);
  const { bytesRead } = await readFd(fd, head, 0, head.length, 0);
  if (bytesRead < head.length || !head.equals(MANIFEST_MAGIC)) return undefined;
  const rest = Buffer.alloc(fileBytes - head.length);
  let offset = 0;
  while (offset < rest.length) {
    const { bytesRead: got } = await readFd(fd, rest, offset, rest.length - offset, head.length + offset);
    if (got === 0) break;
    offset += got;
  }
  return JSON.parse(rest.subarray(0, offset).toString('utf8')) as Manifest;
}

/** The manifest at `objectPath`, or undefined for a plain object or none. */
export async function readManifest(objectPath: string): Promise<Manifest | undefined> {
  let handle;
  try {
    handle = await open(objectPath, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const head = Buffer.alloc(MANIFEST_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead < head.length || !head.equals(MANIFEST_MAGIC)) return undefined;
    // the whole file: a positioned read leaves the handle's position at the start
    const text = (await handle.readFile()).subarray(MANIFEST_MAGIC.length).toString('utf8');
    return JSON.parse(text) as Manifest;
  } finally {
    await handle.close();
  }
}

/**
 * Hard-links `files` (in order) into a new parts directory of the bucket and returns the manifest
 * naming it. The links are durable (fsync) before this returns when `fsync` is set; the files
 * themselves were when they were written.
 */
export async function linkParts(
  bucketPath: string,
  key: string,
  files: string[],
  sizes: number[],
  etag: string,
  fsync: boolean,
): Promise<Manifest> {
  const root = partsRoot(bucketPath);
  const dir = randomBytes(12).toString('hex');
  const target = path.join(root, dir);
  await mkdir(target, { recursive: true });
  await Promise.all(files.map((file, n) => link(file, path.join(target, String(n + 1)))));
  await writeFile(path.join(target, 'key'), key);
  if (fsync) {
    await Promise.all([syncDirectory(target), syncDirectory(root)]);
  }
  return { dir, parts: sizes, bytes: sizes.reduce((sum, size) => sum + size, 0), etag };
}

/** The manifest's text as stored in the object's file. */
function manifestBytes(manifest: Manifest): Buffer {
  return Buffer.concat([MANIFEST_MAGIC, Buffer.from(JSON.stringify(manifest))]);
}

export async function removeParts(bucketPath: string, manifest: Manifest | undefined): Promise<void> {
  if (manifest) await rm(path.join(partsRoot(bucketPath), manifest.dir), { recursive: true, force: true });
}

/**
 * Removes the parts directories no manifest names any more: left by a crash between a replacement
 * and its clean-up, or by two replacements of one key at once. `objectPathOf` is the store's path of
 * a key's object file.
 */
export async function removeOrphanParts(
  bucketPath: string,
  objectPathOf: (key: string) => string,
): Promise<void> {
  const root = partsRoot(bucketPath);
  let dirs: string[];
  try {
    dirs = await readdir(root);
  } catch {
    return;
  }
  for (const dir of dirs) {
    const key = await readFile(path.join(root, dir, 'key'), 'utf8').catch(() => undefined);
    const manifest =
      key === undefined ? undefined : await readManifest(objectPathOf(key)).catch(() => undefined);
    if (manifest?.dir !== dir) await rm(path.join(root, dir), { recursive: true, force: true });
  }
}

const openFile = promisify(openFd);

/**
 * Bytes `start`..`end` (inclusive) of a manifest's object. Every part file is opened before this
 * resolves, so a replacement of the object meanwhile (which removes the parts directory) cannot cut a
 * read short: the open files keep their bytes, as an open plain object's file does.
 */
export async function openPartsReader(
  bucketPath: string,
  manifest: Manifest,
  start: number,
  end: number,
  pool?: ReadBufferPool,
): Promise<Readable> {
  const dir = path.join(partsRoot(bucketPath), manifest.dir);
  // plain descriptors, not FileHandles: the reader closes them itself, in _destroy
  const opened = await Promise.allSettled(
    manifest.parts.map((_, n) => openFile(path.join(dir, String(n + 1)), 'r')),
  );
  const failed = opened.find((result) => result.status === 'rejected');
  const fds = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failed) {
    for (const fd of fds) close(fd, () => undefined);
    throw failed.reason;
  }
  return new PartsReader(fds, manifest.parts, start, end, pool);
}

/**
 * Bytes `start`..`end` (inclusive) of a plain object's open file `fd` of `size` bytes (its fstat's), read
 * as a part object's parts are; the reader owns the descriptor and closes it. `pool`: read into its
 * buffers.
 */
export function fileReader(
  fd: number,
  size: number,
  start: number,
  end: number,
  pool?: ReadBufferPool,
): Readable {
  return new PartsReader([fd], [size], start, end, pool);
}

class PartsReader extends Readable {
  private position: number;
  private part = 0;
  /** Where the current part starts in the object. */
  private partStart = 0;

  constructor(
    private readonly fds: number[],
    private readonly sizes: number[],
    start: number,
    private readonly end: number,
    /** Where the reads go: its buffers, given back once a response has sent them (read-buffers.ts). */
    private readonly pool?: ReadBufferPool,
  ) {
    super({ highWaterMark: READ_PIECE_BYTES });
    this.position = start;
  }

  override _read(): void {
    if (this.position > this.end) return void this.push(null);
    while (this.part < this.sizes.length && this.position >= this.partStart + this.sizes[this.part]!) {
      this.partStart += this.sizes[this.part]!;
      this.part += 1;
    }
    if (this.part >= this.sizes.length) return void this.push(null);
    const offset = this.position - this.partStart;
    const length = Math.min(READ_PIECE_BYTES, this.sizes[this.part]! - offset, this.end + 1 - this.position);
    const buffer = this.pool?.take() ?? Buffer.allocUnsafe(length);
    read(this.fds[this.part]!, buffer, 0, length, offset, (error, bytesRead) => {
      if (error) return void this.destroy(error);
      if (bytesRead === 0)
        return void this.destroy(new Error('a part of the object is shorter than recorded'));
      this.position += bytesRead;
      this.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    let open = this.fds.length;
    if (open === 0) return callback(error);
    for (const fd of this.fds)
      close(fd, () => {
        open -= 1;
        if (open === 0) callback(error);
      });
  }
}

/**
 * Writes a manifest over the object's file: a temporary file, flushed, renamed into place. Resolves
 * with the file's stat (its identity, which the object's metadata is tagged with).
 */
export async function writeManifest(objectPath: string, manifest: Manifest, fsync: boolean): Promise<Stats> {
  await mkdir(path.dirname(objectPath), { recursive: true });
  const stats = await replaceFile(objectPath, manifestBytes(manifest), fsync);
  if (fsync) await syncDirectory(path.dirname(objectPath));
  return stats;
}
