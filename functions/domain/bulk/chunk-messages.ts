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

export const chunkMessageShape = z.discriminatedUnion('kind', [
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
    /** Sent again by the probe stage once every probe batch of the chunk settled: write the part now. */
    probed: z.boolean().optional(),
    /**
     * Sent again, DNS_RETRY_DELAY_SECONDS later, by its first pass because some of its domains timed
     * out: this pass asks them afresh, and what times out again reads some_risk / dns_timeout.
     */
    dnsRetry: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('finalize'), companyId: z.string().min(1), jobId: z.string().min(1) }),
]);

/** A chunks-queue message; one from before headerStart existed had its header as the first row of the chunk flagged so. */
export const chunkMessageSchema = chunkMessageShape.transform((message) =>
  message.kind === 'chunk' && message.headerRow && message.headerStart === undefined
    ? { ...message, headerStart: message.start }
    : message,
);

export type ChunkMessage = z.infer<typeof chunkMessageSchema>;
export type ChunkWork = Extract<ChunkMessage, { kind: 'chunk' }>;
