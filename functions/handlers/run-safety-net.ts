// SQS safetynet: one connection's sync or look-ahead per message. A long rate limit puts the message
// back until the time the platform gave (never before it); other failures are retried by the queue and
// end in its DLQ.
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { systemClock } from '../clock';
import { safetyNetMessageSchema } from '../domain/safety-net/messages';
import { runLookahead } from '../domain/safety-net/prevention';
import { runSync } from '../domain/safety-net/sync';
import { secretSettings } from '../middlewares/secret-settings';
import { sqsBatch } from '../middlewares/sqs-batch';
import { holdMessage } from '../store/queues';

/** SQS's longest visibility timeout we ask for: a later retry time waits in several holds. */
const maxHoldSeconds = 900;

const consume = sqsBatch(
  safetyNetMessageSchema,
  async (message, { log, record }) => {
    const deps = { clock: systemClock, log };
    const outcome =
      message.kind === 'sync' ? await runSync(message, deps) : await runLookahead(message, deps);
    if (outcome.kind === 'later') {
      const seconds = Math.ceil((outcome.retryAt.getTime() - systemClock().getTime()) / 1000);
      await holdMessage('safetynet', record.receiptHandle, Math.min(maxHoldSeconds, Math.max(1, seconds)));
      return 'retry';
    }
    log.info('safety net message handled', { kind: message.kind, outcome: outcome.kind });
  },
  { name: 'runSafetyNet' },
);

// refreshing a grant needs mailvet's client secret (a secret store in AWS)
export const handler = middy<SQSEvent, SQSBatchResponse>().use(secretSettings()).handler(consume);
