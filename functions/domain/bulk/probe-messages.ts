// The messages of the probes queue: one batch of addresses at one MX host, from one chunk of a job.
// A batch the worker could not finish comes back as the same batch (same id) with what is left to do
// and the verdicts found so far, so it is settled, and counted, once.
import { z } from 'zod';
import { chunkMessageShape } from './chunk-messages';

const mailboxProbeSchema = z.enum([
  'accepted',
  'not_found',
  'disabled',
  'full',
  'greylisted',
  'timeout',
  'unreachable',
  'blocked',
  'error',
  'proxy_failed',
  'unverifiable',
]);

const chunkWorkSchema = chunkMessageShape.options[0];

export const probeMessageSchema = z.object({
  kind: z.literal('probe'),
  /** The chunk message the batch came from: sent again (probed: true) once its last batch settles. */
  chunk: chunkWorkSchema,
  batch: z.number().int().nonnegative(),
  /** Batches of the chunk: the chunk is done probing when this many are settled. */
  batches: z.number().int().positive(),
  host: z.string().min(1),
  addresses: z.array(z.string().min(1)).min(1),
  /** Every address of the batch (for the progress count). */
  size: z.number().int().positive(),
  todo: z.array(z.string().min(1)),
  done: z.record(z.string(), mailboxProbeSchema),
  /** Addresses of `done` whose verdict came from the verdict cache: not stored there again. */
  cached: z.array(z.string().min(1)).optional(),
  /** Greylisting rounds already waited (each PROBE_GREYLIST_DELAY_SECONDS). */
  greylistRounds: z.number().int().nonnegative(),
  /** Times the batch was handed back (deadline, no session slot, RCPT budget): bounded. */
  handBacks: z.number().int().nonnegative(),
});

export type ProbeMessage = z.infer<typeof probeMessageSchema>;

/** The batch's id within its job: unique per chunk and batch number. */
export function probeBatchId(m: Pick<ProbeMessage, 'chunk' | 'batch'>): string {
  return `${m.chunk.index}-${m.batch}`;
}
