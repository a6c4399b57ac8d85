// SQS placementSends: one mailbox's placement tests of a day, sent over its SMTP submission server.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mailServers } from '../clients/mail-servers';
import { systemClock, type Clock } from '../clock';
import { placementSendMessageSchema, sendPlacementTests } from '../domain/mailboxes/placement';
import type { MailServers } from '../domain/mailboxes/ports';
import { sqsBatch } from '../middlewares/sqs-batch';

export function consumeSends(
  event: SQSEvent,
  servers: MailServers = mailServers,
  clock: Clock = systemClock,
): Promise<SQSBatchResponse> {
  return sqsBatch(
    placementSendMessageSchema,
    async (message, { log }) => {
      const now = clock();
      const outcome = await sendPlacementTests(message, servers, { now, mailDate: now }, log);
      return outcome === 'retry' ? 'retry' : undefined;
    },
    { name: 'sendPlacementTests', concurrent: true },
  )(event);
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler((event: SQSEvent) => consumeSends(event));
