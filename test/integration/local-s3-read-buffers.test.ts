// The local S3's read buffers (local/s3/read-buffers.ts): a buffer goes back to the pool only once the
// response's socket has taken its bytes, so GETs served at once, read slowly, still get their own bytes.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { READ_PIECE_BYTES, ReadBufferPool } from '../../local/s3/read-buffers';
import { useLocalS3 } from '../helpers/local-s3-fixture';

const bucket = 'mailvet-read-buffers-test';
const credentials = { accessKeyId: 'read-buffers-test', secretAccessKey: 'read-buffers-test-secret' };

describe('the read buffer pool', () => {
  it('hands a buffer out again only once it was given back', () => {
    const pool = new ReadBufferPool();
    const first = pool.take();
    const second = pool.take();
    expect(first.length).toBe(READ_PIECE_BYTES);
    expect(second.buffer).not.toBe(first.buffer);
    // a piece of it gives the whole buffer back, once however often it is given
    pool.give(first.subarray(0, 10));
    pool.give(first.subarray(5, 20));
    expect(pool.take().buffer).toBe(first.buffer);
    expect(pool.take().buffer).not.toBe(first.buffer);
  });

  it('knows its own buffers and ignores anyone else’s', () => {
    const pool = new ReadBufferPool();
    const own = pool.take();
    const foreign = Buffer.alloc(READ_PIECE_BYTES);
    expect(pool.owns(own.subarray(100, 200))).toBe(true);
    expect(pool.owns(foreign)).toBe(false);
    pool.give(foreign);
    expect(pool.take().buffer).not.toBe(foreign.buffer);
  });

  it('gets a piece back from a response once its socket has taken it, and still calls the writer back', async () => {
    const pool = new ReadBufferPool();
    const piece = pool.take().fill(7);
    const called: string[] = [];
    const server = http.createServer((_req, res) => {
      pool.recycleOn(res);
      res.write(piece, () => called.push('write callback'));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const body = await fetch(`http://127.0.0.1:${port}/`).then((res) => res.arrayBuffer());
      expect(Buffer.from(body).equals(Buffer.alloc(READ_PIECE_BYTES, 7))).toBe(true);
      expect(called).toEqual(['write callback']);
      expect(pool.take().buffer).toBe(piece.buffer);
    } finally {
      server.close();
    }
  });
});

describe('GETs served from the pool', () => {
  const fixture = useLocalS3('read-buffers', { buckets: [bucket], ...credentials });

  /** A GET read slowly (a pause after each piece), as a busy worker reads: its bytes' MD5. */
  function slowGet(url: string, range?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      http
        .get(url, { headers: range ? { range } : {} }, (res) => {
          const hash = createHash('md5');
          res.on('data', (piece: Buffer) => {
            hash.update(piece);
            res.pause();
            setTimeout(() => res.resume(), 2);
          });
          res.on('end', () => resolve(hash.digest('hex')));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  }

  const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

  it('gives every one of many slow GETs at once the bytes of its own object and range', async () => {
    const objects = Array.from({ length: 3 }, () => randomBytes(3.5 * READ_PIECE_BYTES));
    const urls = await Promise.all(
      objects.map(async (body, n) => {
        await fixture.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `objects/${n}`, Body: body }));
        return getSignedUrl(fixture.s3, new GetObjectCommand({ Bucket: bucket, Key: `objects/${n}` }));
      }),
    );
    const start = READ_PIECE_BYTES / 2;
    const end = 3 * READ_PIECE_BYTES + 17;
    const gets = [1, 2].flatMap(() =>
      objects.flatMap((body, n) => [
        slowGet(urls[n]!).then((digest) => expect(digest).toBe(md5(body))),
        slowGet(urls[n]!, `bytes=${start}-${end}`).then((digest) =>
          expect(digest).toBe(md5(body.subarray(start, end + 1))),
        ),
      ]),
    );
    await Promise.all(gets);
  });
});
