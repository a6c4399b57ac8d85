// The buffers object GETs read their files into, used again once the response's socket has taken their
// bytes. A fresh 1 MiB buffer per read made every byte served (the scan's GET, the chunks' ranges, the
// assembly's reads, the download: ~400 MB a bulk job) memory for the main thread's collector to sweep;
// most of its collections during a job were started by that churn.
import type http from 'node:http';

/** Bytes per read of an object's file (s3rver's own: 64 KiB, a read and a socket write each). */
export const READ_PIECE_BYTES = 1024 * 1024;

/** On a pool buffer's ArrayBuffer: its pool, the buffer, and whether it is in the free list. */
const poolTag = Symbol('read buffer pool');

interface PoolTag {
  pool: ReadBufferPool;
  buffer: Buffer;
  free: boolean;
}

const tagOf = (piece: Uint8Array) => (piece.buffer as { [poolTag]?: PoolTag })[poolTag];

export class ReadBufferPool {
  // A buffer is recognised by a tag on its own memory, not by a WeakMap: the collector would keep every
  // buffer a WeakMap names (a GET through the gate's proxy never gives its buffers back) until a full
  // collection, the very churn the pool exists to spare.
  private readonly free: Buffer[] = [];

  /** `keep`: free buffers kept at most; the rest are left to the collector. */
  constructor(private readonly keep = 16) {}

  /** A buffer of READ_PIECE_BYTES, the caller's until it gives it back. */
  take(): Buffer {
    const reused = this.free.pop();
    if (reused) {
      tagOf(reused)!.free = false;
      return reused;
    }
    const buffer = Buffer.allocUnsafeSlow(READ_PIECE_BYTES);
    const tag: PoolTag = { pool: this, buffer, free: false };
    Object.defineProperty(buffer.buffer, poolTag, { value: tag });
    return buffer;
  }

  /** Whether `piece` lies in one of this pool's buffers. */
  owns(piece: Uint8Array): boolean {
    return tagOf(piece)?.pool === this;
  }

  /** Gives back the buffer `piece` lies in: nothing may read or write it any more. */
  give(piece: Uint8Array): void {
    const tag = tagOf(piece);
    if (tag?.pool !== this || tag.free || this.free.length >= this.keep) return;
    tag.free = true;
    this.free.push(tag.buffer);
  }

  /**
   * Makes `res` give each piece of this pool's buffers back once its socket has taken the bytes (the
   * write's callback), never sooner. A piece that never reaches the socket is left to the collector.
   */
  recycleOn(res: http.ServerResponse): void {
    const write = res.write.bind(res) as (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;
    res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
      if (!(chunk instanceof Uint8Array) || !this.owns(chunk)) return write(chunk, encoding, callback);
      const done = typeof encoding === 'function' ? encoding : callback;
      return write(chunk, typeof encoding === 'function' ? undefined : encoding, (error?: Error | null) => {
        // after an error the socket is gone: no write of it is pending any more either
        this.give(chunk);
        if (typeof done === 'function') (done as (error?: Error | null) => void)(error);
      });
    }) as typeof res.write;
  }
}
