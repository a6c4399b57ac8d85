// One delivery attempt of a completion webhook, and what the queue does next (acknowledge, or retry
// after n seconds). SQS may deliver a message twice, so a webhook that already ended is skipped; the
// POST goes through the SSRF guard because the callback URL is the customer's.
import { systemClock, type Clock } from '../../clock';
import { getCompany } from '../accounts/accounts';
import { NotFoundError } from '../../errors';
import { sortedJson } from '../../json';
import { logger as rootLogger, type Logger } from '../../log';
import { countMetric } from '../../metrics';
import { settings } from '../../settings';
import {
  currentWebhookStatus,
  recordAttempt,
  type AttemptOutcome,
  type JobRef,
} from '../../store/webhook-attempts';
import { parseCallbackUrl } from './callback-guard';
import { parseWebhookMessage, type WebhookMessage } from './message';
import { postWebhook } from './post';
import { classify, decide, maxAttempts, type AttemptResult, type Decision } from './retry-policy';
import { signWebhook } from './signing';

export interface AttemptContext {
  /** 1-based attempt number: the SQS record's ApproximateReceiveCount. */
  attempt: number;
  log?: Logger;
  clock?: Clock;
  random?: () => number;
}

const acknowledge: Decision = { action: 'acknowledge' };

/** A queue message that is not a webhook message: recorded as failed on the job it names, if any. */
export async function recordMalformedMessage(messageBody: string, context: AttemptContext): Promise<void> {
  const parsed = parseWebhookMessage(messageBody);
  if (parsed.ok) return;
  const log = context.log ?? rootLogger;
  const startedAt = (context.clock ?? systemClock)();
  log.error('Dropping a malformed webhook message', undefined, { reason: parsed.error, ...parsed.job });
  if (parsed.job)
    await record(log, parsed.job, context.attempt, startedAt, 'failed', { error: parsed.error });
}

export async function deliverWebhook(message: WebhookMessage, context: AttemptContext): Promise<Decision> {
  const { attempt } = context;
  const clock = context.clock ?? systemClock;
  let log = context.log ?? rootLogger;
  const startedAt = clock();

  const job: JobRef = { companyId: message.companyId, jobId: message.jobId };
  log = log.child({ companyId: job.companyId, jobId: job.jobId, webhookId: message.webhookId, attempt });

  const status = await currentWebhookStatus(job).catch((error: unknown) => {
    // Not knowing only risks a duplicate delivery, which receivers handle by webhook-id anyway.
    log.warn('Could not read the job webhook status; delivering anyway', { error: String(error) });
    return undefined;
  });
  if (status === 'delivered' || status === 'failed') {
    log.info('Webhook already ended; dropping a duplicate message', { webhookStatus: status });
    return acknowledge;
  }

  const target = parseCallbackUrl(message.callbackUrl);
  if (!target.ok) {
    await record(log, job, attempt, startedAt, 'refused', { error: target.error });
    return acknowledge;
  }

  let secret: string;
  try {
    secret = (await getCompany(job.companyId)).webhookSecret;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await record(log, job, attempt, startedAt, 'failed', { error: 'The job company no longer exists' });
    return acknowledge;
  }

  const body = sortedJson(message.payload);
  let headers: Record<string, string>;
  try {
    headers = { ...signWebhook({ secret, webhookId: message.webhookId, body, at: startedAt }) };
  } catch (error) {
    log.error('Company webhook secret cannot sign', error);
    await record(log, job, attempt, startedAt, 'failed', { error: 'The company webhook secret is invalid' });
    return acknowledge;
  }

  const s = settings();
  const result = await postWebhook({
    url: target.url,
    headers,
    body,
    timeoutMs: s.WEBHOOK_TIMEOUT_MS,
    allowPrivate: s.ALLOW_PRIVATE_CALLBACKS,
  });
  const verdict = classify(result);
  const decision = decide(verdict, attempt, s.WEBHOOK_RETRY_BASE_SECONDS, context.random);
  const outcome: AttemptOutcome =
    verdict === 'delivered'
      ? 'delivered'
      : decision.action === 'retry'
        ? 'retry'
        : result.kind === 'refused'
          ? 'refused'
          : 'failed';

  const endedAt = clock();
  await record(log, job, attempt, startedAt, outcome, {
    ...describe(result),
    durationMs: Math.max(0, endedAt.getTime() - startedAt.getTime()),
    ...(decision.action === 'retry'
      ? { nextAttemptAt: new Date(endedAt.getTime() + decision.delaySeconds * 1000).toISOString() }
      : {}),
  });
  log.info('Webhook attempt', {
    outcome,
    ...describe(result),
    ...(decision.action === 'retry' ? { retryInSeconds: decision.delaySeconds } : {}),
    ...(outcome === 'failed' && verdict === 'retryable' ? { gaveUpAfter: maxAttempts } : {}),
  });
  return decision;
}

function describe(result: AttemptResult): { statusCode?: number; error?: string } {
  if (result.kind === 'response') {
    const ok = result.statusCode >= 200 && result.statusCode < 300;
    return ok
      ? { statusCode: result.statusCode }
      : { statusCode: result.statusCode, error: `HTTP ${result.statusCode}` };
  }
  return { error: result.error };
}

/**
 * Best effort after the SDK's own retries: the attempt already happened, and failing the message now
 * would send the webhook again (a second delivery after a 2xx, or a retry the policy ruled out).
 */
async function record(
  log: Logger,
  job: JobRef,
  attempt: number,
  at: Date,
  outcome: AttemptOutcome,
  detail: { statusCode?: number; error?: string; durationMs?: number; nextAttemptAt?: string },
): Promise<void> {
  countMetric('WebhookDeliveries', 1, { Outcome: outcome });
  try {
    const found = await recordAttempt(job, { attempt, at: at.toISOString(), outcome, ...detail });
    if (!found) log.warn('Webhook attempt not recorded: no such job item', { ...job, outcome });
  } catch (error) {
    log.error('Could not record the webhook attempt', error, { ...job, outcome });
  }
}
