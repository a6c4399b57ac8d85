// The safetynet queue's message: one connection's sync or look-ahead (a schedule's fan-out, a
// connection's first sync, POST .../sync, a webhook), done by the runSafetyNet consumer.
import { z } from 'zod';
import { safetyNetPlatforms } from '../../store/entities/safety-net';
import { sendMessage, sendMessageBatch } from '../../store/queues';
import { readAllConnections } from '../../store/safety-net';

export const safetyNetMessageSchema = z.object({
  companyId: z.string().min(1),
  platform: z.enum(safetyNetPlatforms),
  kind: z.enum(['sync', 'lookahead']),
  /** The first sync after a connection registers mailvet's webhook at this address. */
  webhookUrl: z.string().optional(),
});
export type SafetyNetMessage = z.infer<typeof safetyNetMessageSchema>;

export function queueSafetyNetWork(message: SafetyNetMessage): Promise<void> {
  return sendMessage('safetynet', message);
}

/** A schedule's run: one message per connection of every company, in batches of 10. */
export async function fanOut(kind: SafetyNetMessage['kind']): Promise<number> {
  const connections = await readAllConnections();
  for (let i = 0; i < connections.length; i += 10) {
    await sendMessageBatch(
      'safetynet',
      connections.slice(i, i + 10).map((c, n) => ({ id: String(n), message: { ...c, kind } })),
    );
  }
  return connections.length;
}
