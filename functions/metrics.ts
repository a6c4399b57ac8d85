// Counts for the operations dashboard, written by Powertools for AWS Lambda's Metrics as CloudWatch
// embedded-metric-format log lines: Lambda's log pipeline turns them into metrics in the `mailvet`
// namespace with no API call and no extra permission. Off unless EMF_METRICS is set (the stack sets it;
// locally they would only be log noise).
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { settings } from './settings';

export const metricsNamespace = 'mailvet';

/** Every metric the code emits; lib/operations.ts graphs them, lib/validation-health-alarms.ts alarms on some. */
export type MetricName =
  | 'JobsCreated'
  | 'JobsStarted'
  | 'JobsCompleted'
  | 'JobsFailed'
  | 'JobsDeleted'
  | 'RowsValidated'
  | 'MailboxProbes'
  /** A DNS canary check found the resolver answering none of DNS_CANARY_DOMAINS. */
  | 'DnsUnavailable'
  /** Probe batches that got answers from their MX host, and those whose host refused us ("about us"). */
  | 'ProbedHosts'
  | 'RefusingHosts'
  | 'WebhookDeliveries'
  /** DynamoDB commands sent, by command (store/dynamodb.ts send). */
  | 'DynamoDbCommands';

let metrics: Metrics | undefined;

function enabled(): boolean {
  try {
    return settings().EMF_METRICS;
  } catch {
    return false;
  }
}

/**
 * Adds `value` to a count metric, optionally under one dimension (e.g. { Outcome: 'delivered' }). Each
 * count is written at once (a single metric), so no handler has to flush at its end, and under exactly
 * the dimensions given: Powertools' default `service` dimension is left out, as the dashboard's metrics
 * have none.
 */
export function countMetric(name: MetricName, value = 1, dimension?: Record<string, string>): void {
  if (!enabled()) return;
  metrics ??= new Metrics({ namespace: metricsNamespace });
  const single = metrics.singleMetric();
  single.clearDefaultDimensions();
  single.addDimensions(dimension ?? {});
  single.addMetric(name, MetricUnit.Count, value);
}
