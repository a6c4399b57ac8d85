// The body writer's thread (body-writer.ts starts it): feeds each body's pieces to its MD5 here while
// the file write of the same pieces runs in libuv's thread pool, and answers each request once done, so
// the main thread can go on. Batches are written at their own offset: their writes may overlap.
import { createHash, type Hash } from 'node:crypto';
import { close, fsync, openSync, write, writev } from 'node:fs';
import { promisify } from 'node:util';
import { parentPort } from 'node:worker_threads';
import type { FromBodyWriter, ToBodyWriter } from './body-writer';

const port = parentPort!;

interface OpenBody {
  fd: number;
  hash?: Hash;
  /** Where the next batch goes in the file. */
  position: number;
  /** Its batches still being written. */
  writing: Set<Promise<void>>;
}

const open = new Map<number, OpenBody>();
const writevAt = promisify(writev);
const writeAt = promisify(write);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** Writes the pieces at `position`; a short writev (never on a regular file) is finished piece by piece. */
async function writeAll(fd: number, pieces: Buffer[], bytes: number, position: number): Promise<void> {
  let written = (await writevAt(fd, pieces, position)).bytesWritten;
  if (written === bytes) return;
  const rest = Buffer.concat(pieces, bytes);
  while (written < bytes)
    written += (await writeAt(fd, rest, written, bytes - written, position + written)).bytesWritten;
}

function opened(id: number): OpenBody {
  const body = open.get(id);
  if (!body) throw new Error(`body ${id} is not open`);
  return body;
}

async function handle(request: ToBodyWriter): Promise<string | undefined> {
  switch (request.type) {
    case 'open': {
      const fd = openSync(request.file, 'w');
      const body: OpenBody = { fd, position: 0, writing: new Set() };
      if (request.md5) body.hash = createHash('md5');
      open.set(request.body, body);
      return undefined;
    }
    case 'write': {
      const body = opened(request.body);
      const pieces = request.pieces.map((piece) =>
        Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength),
      );
      const bytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
      const written = writeAll(body.fd, pieces, bytes, body.position);
      body.position += bytes;
      body.writing.add(written);
      // hashed here while the thread pool writes them
      for (const piece of pieces) body.hash?.update(piece);
      try {
        await written;
      } finally {
        body.writing.delete(written);
      }
      return undefined;
    }
    case 'finish': {
      const body = opened(request.body);
      open.delete(request.body);
      try {
        await Promise.all(body.writing);
        if (request.fsync) await fsyncFd(body.fd);
      } finally {
        await closeFd(body.fd);
      }
      return body.hash?.digest('hex') ?? '';
    }
    case 'abort': {
      const body = open.get(request.body);
      open.delete(request.body);
      if (body) {
        await Promise.allSettled(body.writing);
        await closeFd(body.fd);
      }
      return undefined;
    }
  }
}

port.on('message', (request: ToBodyWriter) => {
  handle(request).then(
    (md5) => port.postMessage({ seq: request.seq, ok: true, md5 } satisfies FromBodyWriter),
    (error: NodeJS.ErrnoException) =>
      port.postMessage({
        seq: request.seq,
        ok: false,
        message: error.message,
        ...(error.code ? { code: error.code } : {}),
      } satisfies FromBodyWriter),
  );
});
port.postMessage({ seq: -1, ok: true } satisfies FromBodyWriter);
