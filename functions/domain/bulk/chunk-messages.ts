// The messages of the chunks queue: one per chunk of an upload, and a "finalize" nudge sent when every
// chunk finished before the scan recorded how many there are.
import { z } from 'zod';
import { delimiters } from './csv/dialect';

const pinSchema = z.object({
  key: z.string().min(1),
  etag: z.string().min(1),
  versionId: z.string().optional(),
  size: z.number().int().nonnegative(),
});

export const chunkMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('chunk'),
    companyId: z.string().min(1),
    jobId: z.string().min(1),
    index: z.number().int().nonnegative(),
    /** Byte range [start, end) of the upload: whole rows. */
    start: z.number().int().nonnegative(),
    end: z.number().int().positive(),
    dataRows: z.number().int().nonnegative(),
    headerRow: z.boolean(),
    delimiter: z.enum(delimiters),
    /** The file's encoding (csv/encoding.ts); messages from before it was sent are UTF-8. */
    encoding: z.string().min(1).default('utf-8'),
    /** Byte offset of the header row, when the file has one. */
    headerStart: z.number().int().nonnegative().optional(),
    /** Rows starting before this byte offset pass through (sep= line, preamble, header). */
    dataStart: z.number().int().nonnegative().default(0),
    emailColumn: z.number().int().nonnegative(),
    object: pinSchema,
  }),
  z.object({ kind: z.literal('finalize'), companyId: z.string().min(1), jobId: z.string().min(1) }),
]);

export type ChunkMessage = z.infer<typeof chunkMessageSchema>;
export type ChunkWork = Extract<ChunkMessage, { kind: 'chunk' }>;

export function parseChunkMessage(body: string): ChunkMessage {
  const message = chunkMessageSchema.parse(JSON.parse(body));
  // A message from before headerStart existed: its header was the first row of the chunk flagged so.
  if (message.kind === 'chunk' && message.headerRow && message.headerStart === undefined)
    return { ...message, headerStart: message.start };
  return message;
}
