// Writes object and part bodies to their files and hashes them (MD5, the ETag) in a thread of its own
// (body-writer-thread.ts), off the event loop that reads them from their sockets. The main thread hands
// each batch of an upload's pieces over without copying them (their memory moves to the thread), so
// hashing and writing a 100 MB upload overlap its reading instead of following it, and the buffers no
// longer count towards the main thread's own collections.
import { Worker } from 'node:worker_threads';
import { logger } from '../../functions/log';

export type ToBodyWriter =
  | { seq: number; type: 'open'; body: number; file: string; md5: boolean }
  | { seq: number; type: 'write'; body: number; pieces: Uint8Array[] }
  | { seq: number; type: 'finish'; body: number; fsync: boolean }
  | { seq: number; type: 'abort'; body: number };

/** The answer to request `seq` (-1: the thread is ready). `md5` answers a `finish`. */
export type FromBodyWriter =
  { seq: number; ok: true; md5?: string } | { seq: number; ok: false; message: string; code?: string };

type Request = ToBodyWriter extends infer R ? (R extends ToBodyWriter ? Omit<R, 'seq'> : never) : never;

/** One body being written: its pieces in order, then finish (or abort). */
export interface BodyFile {
  /**
   * Appends the pieces. `movable`: they are the caller's alone (a request's body as the socket gave
   * it), so their memory moves to the thread and they are unusable here afterwards; else they are copied.
   */
  write(pieces: Buffer[], movable: boolean): Promise<void>;
  /** Flushes (with fsync), closes, and gives the MD5 of everything written ('' if not asked for). */
  finish(fsync: boolean): Promise<string>;
  /** Closes the file without finishing it (the caller removes it). */
  abort(): Promise<void>;
}

export interface BodyWriter {
  /** Creates (or truncates) `file` for a body; `md5`: hash it on the way. */
  open(file: string, md5: boolean): Promise<BodyFile>;
  /** Resolves once the thread can take work (it queues what comes before). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Loads TypeScript in the thread as the worker pool does (local/worker-pool.ts). */
function bootstrap(): string {
  const tsx = require.resolve('tsx/cjs');
  const thread = require.resolve('./body-writer-thread.ts');
  return `require(${JSON.stringify(tsx)});\nrequire(${JSON.stringify(thread)});\n`;
}

/** A piece whose ArrayBuffer holds it alone can move to the thread as it is. */
function ownsItsMemory(piece: Buffer): boolean {
  return piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength;
}

export function startBodyWriter(): BodyWriter {
  let seq = 0;
  let nextBody = 0;
  let closing = false;
  const waiting = new Map<number, { resolve: (md5: string) => void; reject: (error: Error) => void }>();
  let thread = spawn();

  function spawn(): { worker: Worker; ready: Promise<void> } {
    const worker = new Worker(bootstrap(), { eval: true, execArgv: [] });
    // Never what keeps a process alive: a body in flight has its socket for that.
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (answer: FromBodyWriter) => {
        if (answer.seq === -1) return resolve();
        const waiter = waiting.get(answer.seq);
        waiting.delete(answer.seq);
        if (answer.ok) return waiter?.resolve(answer.md5 ?? '');
        const error: NodeJS.ErrnoException = new Error(answer.message);
        if (answer.code) error.code = answer.code;
        waiter?.reject(error);
      });
      worker.once('exit', (code) => {
        const error = new Error(`the local S3's body writer thread exited (code ${code})`);
        reject(error);
        for (const waiter of waiting.values()) waiter.reject(error);
        waiting.clear();
        if (closing) return;
        logger.error('local S3: body writer thread exited; starting another', undefined, { exitCode: code });
        thread = spawn();
      });
    });
    // A failed start is reported by the requests that wait for it.
    ready.catch(() => undefined);
    return { worker, ready };
  }

  const send = (request: Request, transfer: ArrayBuffer[] = []): Promise<string> =>
    new Promise((resolve, reject) => {
      if (closing) return reject(new Error("the local S3's body writer is closed"));
      const id = seq++;
      waiting.set(id, { resolve, reject });
      thread.worker.postMessage({ ...request, seq: id }, transfer);
    });

  return {
    get ready() {
      return thread.ready;
    },
    async open(file, md5) {
      const body = nextBody++;
      await send({ type: 'open', body, file, md5 });
      return {
        async write(pieces, movable) {
          const sent = pieces.map((piece) =>
            movable && ownsItsMemory(piece) ? piece : new Uint8Array(piece),
          );
          await send(
            { type: 'write', body, pieces: sent },
            sent.map((piece) => piece.buffer as ArrayBuffer),
          );
        },
        finish: (fsync) => send({ type: 'finish', body, fsync }),
        async abort() {
          await send({ type: 'abort', body }).catch(() => undefined);
        },
      };
    },
    async close() {
      closing = true;
      await thread.worker.terminate();
    },
  };
}
