// Chunk messages sent before issue 8 (no encoding, headerStart, dataStart) still read the same way.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readChunkRows } from '../../../functions/domain/bulk/csv/annotate';
import { chunkMessageSchema } from '../../../functions/domain/bulk/chunk-messages';

const parseChunkMessage = (body: string) => chunkMessageSchema.parse(JSON.parse(body));

const legacyBody = (
  JSON.parse(readFileSync(path.join(__dirname, '../../../events/validateChunk.json'), 'utf8')) as {
    Records: { body: string }[];
  }
).Records[0]!.body;

describe('chunk messages', () => {
  it('reads a message without the dialect fields as UTF-8 with the header first', () => {
    const message = parseChunkMessage(legacyBody);
    expect(message).toMatchObject({ kind: 'chunk', encoding: 'utf-8', headerStart: 0, dataStart: 0 });
    if (message.kind !== 'chunk') throw new Error('not a chunk message');
    const rows = readChunkRows(Buffer.from('name,email\nAnn,ann@x.io\n'), { ...message, chunkStart: 0 });
    expect(rows.map((row) => row.kind)).toEqual(['header', 'data']);
  });

  it('keeps the header offset a current message carries', () => {
    const current = { ...JSON.parse(legacyBody), headerStart: 7, dataStart: 18, encoding: 'utf-16le' };
    expect(parseChunkMessage(JSON.stringify(current))).toMatchObject({
      headerStart: 7,
      dataStart: 18,
      encoding: 'utf-16le',
    });
  });
});
