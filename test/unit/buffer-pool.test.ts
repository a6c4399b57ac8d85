import { BufferPool } from '../../functions/buffer-pool';

const MB = 1024 * 1024;

describe('BufferPool', () => {
  it('gives the next take of about the same size the memory of a buffer given back', () => {
    const pool = new BufferPool(4, MB);
    const chunk = pool.take(5 * MB + 17);
    expect(chunk.length).toBe(5 * MB + 17);
    chunk.fill(1);
    pool.give(chunk);
    expect(pool.size).toBe(1);

    // a part a little longer than the chunk still fits: capacities are whole MB
    const part = pool.take(5 * MB + 900_000);
    expect(part.length).toBe(5 * MB + 900_000);
    expect(part.buffer).toBe(chunk.buffer);
    expect(pool.size).toBe(0);
  });

  it('makes a new buffer while the ones it holds are taken or too small', () => {
    const pool = new BufferPool(4, MB);
    const first = pool.take(2 * MB);
    const second = pool.take(2 * MB);
    expect(second.buffer).not.toBe(first.buffer);
    pool.give(first);
    const larger = pool.take(3 * MB);
    expect(larger.buffer).not.toBe(first.buffer);
    expect(pool.size).toBe(1);
  });

  it('takes the smallest free buffer that holds the request', () => {
    const pool = new BufferPool(4, MB);
    const big = pool.take(8 * MB);
    const small = pool.take(3 * MB);
    pool.give(big);
    pool.give(small);
    expect(pool.take(2 * MB).buffer).toBe(small.buffer);
    expect(pool.take(2 * MB).buffer).toBe(big.buffer);
  });

  it('keeps at most `keep` buffers, each once however often it is given back', () => {
    const pool = new BufferPool(2, MB);
    const buffers = [pool.take(MB), pool.take(MB), pool.take(MB)];
    pool.give(buffers[0]!);
    pool.give(buffers[0]!);
    expect(pool.size).toBe(1);
    for (const buffer of buffers) pool.give(buffer);
    expect(pool.size).toBe(2);
  });

  it('leaves small buffers and views into other memory out of the pool', () => {
    const pool = new BufferPool(4, MB);
    const small = pool.take(1000);
    expect(small.length).toBe(1000);
    pool.give(small);
    const view = Buffer.allocUnsafeSlow(3 * MB).subarray(10);
    pool.give(view);
    expect(pool.size).toBe(0);
  });
});
