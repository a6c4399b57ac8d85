// The local S3's body writer (local/s3/body-writer.ts): bodies written and hashed in its thread, pieces
// moved there uncopied only when the caller says they are its alone, failures reported to the caller.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startBodyWriter, type BodyWriter } from '../../local/s3/body-writer';

let dir: string;
let writer: BodyWriter;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mailvet-body-writer-'));
  writer = startBodyWriter();
  await writer.ready;
});

afterAll(async () => {
  await writer?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Pieces of 64 KiB or less, each in memory of its own, as a socket gives them. */
function socketPieces(bytes: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes; at += 65536) pieces.push(randomBytes(Math.min(65536, bytes - at)));
  return pieces;
}

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

describe('the body writer', () => {
  it('writes the pieces of several batches in order and answers their MD5', async () => {
    const batches = [socketPieces(1 << 20), socketPieces(300_000), [Buffer.from('the end\n')]];
    const expected = Buffer.concat(batches.flat());
    const file = path.join(dir, 'object');
    const body = await writer.open(file, true);
    for (const batch of batches) await body.write(batch, false);
    expect(await body.finish(false)).toBe(md5(expected));
    expect((await readFile(file)).equals(expected)).toBe(true);
  });

  it('moves a request body’s pieces to its thread and copies everyone else’s', async () => {
    const moved = socketPieces(200_000);
    const kept = socketPieces(200_000);
    const expected = Buffer.concat([...moved, ...kept]);
    const file = path.join(dir, 'moved');
    const body = await writer.open(file, true);
    await body.write(moved, true);
    await body.write(kept, false);
    expect(await body.finish(true)).toBe(md5(expected));
    // moved: their memory now belongs to the thread; kept: still the caller's
    expect(moved.every((piece) => piece.byteLength === 0)).toBe(true);
    expect(Buffer.concat(kept).equals(expected.subarray(200_000))).toBe(true);
    expect((await readFile(file)).equals(expected)).toBe(true);
  });

  it('copies a piece that shares its memory, even when told it may move', async () => {
    const shared = Buffer.from('a small piece of a larger pool\n');
    const file = path.join(dir, 'shared');
    const body = await writer.open(file, true);
    await body.write([shared], true);
    expect(await body.finish(false)).toBe(md5(Buffer.from('a small piece of a larger pool\n')));
    expect(shared.toString()).toBe('a small piece of a larger pool\n');
  });

  it('answers an empty MD5 when none was asked for', async () => {
    const file = path.join(dir, 'copy');
    const body = await writer.open(file, false);
    await body.write([Buffer.from('copied')], false);
    expect(await body.finish(false)).toBe('');
    expect(await readFile(file, 'utf8')).toBe('copied');
  });

  it('reports a file it cannot create with its error code, and keeps serving', async () => {
    await expect(writer.open(path.join(dir, 'missing', 'dir', 'object'), true)).rejects.toMatchObject({
      code: 'ENOENT',
    });
    const body = await writer.open(path.join(dir, 'after'), true);
    await body.write([Buffer.from('x')], false);
    expect(await body.finish(false)).toBe(md5(Buffer.from('x')));
  });

  it('refuses pieces of a body that was aborted', async () => {
    const body = await writer.open(path.join(dir, 'aborted'), true);
    await body.write([Buffer.from('half')], false);
    await body.abort();
    await expect(body.write([Buffer.from('more')], false)).rejects.toThrow(/not open/);
  });

  it('refuses work once closed', async () => {
    const closed = startBodyWriter();
    await closed.ready;
    await closed.close();
    await expect(closed.open(path.join(dir, 'late'), true)).rejects.toThrow(/closed/);
  });
});
