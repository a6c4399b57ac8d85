// The body writer's thread (body-writer.ts starts it): writes each body's pieces to its temporary file
// and feeds them to its MD5, one request at a time, answering each so the main thread can go on.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync, writevSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { FromBodyWriter, ToBodyWriter } from './body-writer';

const port = parentPort!;
const open = new Map<number, { fd: number; hash?: Hash }>();

function handle(request: ToBodyWriter): string | undefined {
  switch (request.type) {
    case 'open': {
      const fd = openSync(request.file, 'w');
      open.set(request.body, request.md5 ? { fd, hash: createHash('md5') } : { fd });
      return undefined;
    }
    case 'write': {
      const body = open.get(request.body);
      if (!body) throw new Error(`body ${request.body} is not open`);
      const pieces = request.pieces.map((piece) =>
        Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength),
      );
      for (const piece of pieces) body.hash?.update(piece);
      const bytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
      let written = writevSync(body.fd, pieces);
      // a regular file takes the whole writev; a short one is finished piece by piece
      if (written < bytes) {
        const rest = Buffer.concat(pieces, bytes);
        while (written < bytes) written += writeSync(body.fd, rest, written);
      }
      return undefined;
    }
    case 'finish': {
      const body = open.get(request.body);
      if (!body) throw new Error(`body ${request.body} is not open`);
      open.delete(request.body);
      try {
        if (request.fsync) fsyncSync(body.fd);
      } finally {
        closeSync(body.fd);
      }
      return body.hash?.digest('hex') ?? '';
    }
    case 'abort': {
      const body = open.get(request.body);
      open.delete(request.body);
      if (body) closeSync(body.fd);
      return undefined;
    }
  }
}

port.on('message', (request: ToBodyWriter) => {
  let answer: FromBodyWriter;
  try {
    answer = { seq: request.seq, ok: true, md5: handle(request) };
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    answer = { seq: request.seq, ok: false, message, ...(code ? { code } : {}) };
  }
  port.postMessage(answer);
});
port.postMessage({ seq: -1, ok: true } satisfies FromBodyWriter);
