// SQS invites: deliver each queued invite email from its outbox record (SES in AWS, an .eml file
// locally) and mark it sent; without a transport it stays pending. A record already sent is skipped,
// as SQS may deliver a message twice.
import { systemClock, type Clock } from '../clock';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { inviteMessageSchema, sendInviteEmail } from '../domain/workspace/invites';
import { sqsBatch } from '../middlewares/sqs-batch';

export function sendInvites(event: SQSEvent, clock: Clock = systemClock): Promise<SQSBatchResponse> {
  return sqsBatch(
    inviteMessageSchema,
    async (message, { log }) => {
      const outcome = await sendInviteEmail(message, clock(), log);
      log.info('invite message handled', { outcome, outboxId: message.outboxId });
    },
    { name: 'sendInvite' },
  )(event);
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler((event: SQSEvent) => sendInvites(event));
