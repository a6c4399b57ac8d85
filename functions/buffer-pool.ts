// Large byte buffers used again by the next invocation of the same process. A fresh 5 MB buffer costs
// ~2 ms of CPU before its first byte is written (the kernel maps and zeroes its pages, and freeing it
// gives them back); a chunk invocation makes two (the chunk it read, the part it writes). On AWS the
// pool lives as long as the Lambda instance, which runs one invocation at a time; the local runtime's
// worker threads run several at once, each taking its own buffers.

/** Rounds capacities up to this, so the chunk and the part of about the same size share buffers. */
const capacityStep = 1024 * 1024;

export class BufferPool {
  private readonly free: Buffer[] = [];

  /**
   * @param keep free buffers kept at most (the rest go to the garbage collector)
   * @param minBytes smaller requests get a plain Buffer.allocUnsafe: only large buffers are pooled
   */
  constructor(
    private readonly keep: number,
    private readonly minBytes: number,
  ) {}

  /** A buffer of `length` bytes whose contents are undefined, as Buffer.allocUnsafe's. */
  take(length: number): Buffer {
    if (length < this.minBytes) return Buffer.allocUnsafe(length);
    // the smallest free buffer that holds it
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i]!.length;
      if (size >= length && (best < 0 || size < this.free[best]!.length)) best = i;
    }
    if (best >= 0) return this.free.splice(best, 1)[0]!.subarray(0, length);
    // not from Node's small-buffer pool, and its own memory: given back whole
    return Buffer.allocUnsafeSlow(Math.ceil(length / capacityStep) * capacityStep).subarray(0, length);
  }

  /**
   * Gives back a buffer from take once nothing will read or write it again (for a request body: once
   * the request was answered). Anything else is left to the garbage collector.
   */
  give(buffer: Buffer): void {
    if (buffer.length < this.minBytes || buffer.byteOffset !== 0) return;
    if (this.free.length >= this.keep) return;
    const whole = Buffer.from(buffer.buffer, 0, buffer.buffer.byteLength);
    if (this.free.some((kept) => kept.buffer === whole.buffer)) return;
    this.free.push(whole);
  }

  /** Free buffers held now (tests). */
  get size(): number {
    return this.free.length;
  }
}

/**
 * The chunk validator's buffers: a chunk read from S3 and the part written from it (~5 MB each). Four
 * kept: the two of an invocation and, in a local worker thread, those of the one beside it.
 */
export const chunkBuffers = new BufferPool(4, 1024 * 1024);
