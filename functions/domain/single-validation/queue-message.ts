// The messages of the validations queue: one per request to finish in the background. The address
// itself stays in the request item, so the message is small and the item is the one source of truth.
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { queueUrl, sqs } from '../../clients/sqs';

export const validationMessageSchema = z.object({
  companyId: z.string().min(1),
  requestId: z.string().min(1),
});

export type ValidationMessage = z.infer<typeof validationMessageSchema>;

export async function enqueueValidation(message: ValidationMessage): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl('validations'),
      MessageBody: JSON.stringify({ companyId: message.companyId, requestId: message.requestId }),
    }),
  );
}
