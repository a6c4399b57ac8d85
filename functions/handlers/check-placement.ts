// SQS placementChecks: one reading of a receiving mailbox over IMAP; while some of its tests are still
// on their way it queues the next reading, and the last one counts the rest as not found.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mailServers } from '../clients/mail-servers';
import { systemClock, type Clock } from '../clock';
import { placementCheckMessageSchema, readPlacementMessage } from '../domain/mailboxes/placement';
import type { MailServers } from '../domain/mailboxes/ports';
import { sqsBatch } from '../middlewares/sqs-batch';

export function consumeChecks(
  event: SQSEvent,
  servers: MailServers = mailServers,
  clock: Clock = systemClock,
): Promise<SQSBatchResponse> {
  return sqsBatch(
    placementCheckMessageSchema,
    (message, { log }) => readPlacementMessage(message, servers, clock(), log),
    { name: 'checkPlacement', concurrent: true },
  )(event);
}

export const handler = middy<SQSEvent, SQSBatchResponse>().handler((event: SQSEvent) => consumeChecks(event));
