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
    emailColumn: z.number().int().nonnegative(),
    object: pinSchema,
    /** Sent again by the probe stage once every probe batch of the chunk settled: write the part now. */
    probed: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('finalize'), companyId: z.string().min(1), jobId: z.string().min(1) }),
]);

export type ChunkMessage = z.infer<typeof chunkMessageSchema>;
export type ChunkWork = Extract<ChunkMessage, { kind: 'chunk' }>;

export function parseChunkMessage(body: string): ChunkMessage {
  return chunkMessageSchema.parse(JSON.parse(body));
}
