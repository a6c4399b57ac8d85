// The messages of the validations queue: one per request to finish in the background. The address
// itself stays in the request item, so the message is small and the item is the one source of truth.
import { z } from 'zod';
import { sendMessage } from '../../store/queues';

export const validationMessageSchema = z.object({
  companyId: z.string().min(1),
  requestId: z.string().min(1),
});

export type ValidationMessage = z.infer<typeof validationMessageSchema>;

export async function enqueueValidation(message: ValidationMessage): Promise<void> {
  await sendMessage('validations', { companyId: message.companyId, requestId: message.requestId });
}
