// SQS invites: deliver each queued invite email from its outbox record and mark it sent. Idempotent per
// message (a record already sent is skipped); failures are reported per message (batchItemFailures).
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sendInviteEmail, type InviteMessage } from '../domain/workspace/invites';
import { logger } from '../log';

export async function sendInvites(
  event: SQSEvent,
  now: () => Date = () => new Date(),
): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const log = logger.child({ function: 'sendInvite', messageId: record.messageId });
    let message: InviteMessage;
    try {
      message = JSON.parse(record.body) as InviteMessage;
      if (typeof message.companyId !== 'string' || typeof message.outboxId !== 'string')
        throw new Error('bad shape');
    } catch {
      // A malformed message can never succeed: drop it rather than cycle it to the DLQ.
      log.error('malformed invite message dropped');
      continue;
    }
    try {
      const outcome = await sendInviteEmail(message, now(), log);
      log.info('invite message handled', { outcome, outboxId: message.outboxId });
    } catch (error) {
      log.error('invite email failed', error);
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

export const handler = (event: SQSEvent) => sendInvites(event);
