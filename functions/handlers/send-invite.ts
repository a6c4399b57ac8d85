// SQS invites: deliver each queued outbox email (invites and every other kind of notification email,
// functions/domain/mail/) from its record (SES in AWS, an .eml file locally) and mark it sent; without a
// transport it stays pending. A record already sent is skipped, as SQS may deliver a message twice.
import { systemClock, type Clock } from '../clock';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverOutboxEmail } from '../domain/mail/deliver';
import { outboxMessageSchema } from '../domain/mail/send-email';
import { sqsBatch } from '../middlewares/sqs-batch';

export function sendInvites(event: SQSEvent, clock: Clock = systemClock): Promise<SQSBatchResponse> {
  return sqsBatch(
    outboxMessageSchema,
    async (message, { log }) => {
      const outcome = await deliverOutboxEmail(message, clock(), log);
      log.info('outbox message handled', { outcome, outboxId: message.outboxId });
    },
    { name: 'sendInvite' },
  )(event);
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler((event: SQSEvent) => sendInvites(event));
