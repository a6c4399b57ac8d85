// Counts for the operations dashboard, written as CloudWatch embedded-metric-format log lines: Lambda's
// log pipeline turns them into metrics in the `mailvet` namespace with no API call and no extra
// permission. Off unless EMF_METRICS is set (the stack sets it; locally they would only be log noise).
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
  | 'WebhookDeliveries';

function enabled(): boolean {
  try {
    return settings().EMF_METRICS;
  } catch {
    return false;
  }
}

/** Adds `value` to a count metric, optionally under one dimension (e.g. { Outcome: 'delivered' }). */
export function countMetric(name: MetricName, value = 1, dimension?: Record<string, string>): void {
  if (!enabled()) return;
  const dimensions = dimension ? [Object.keys(dimension)] : [[]];
  const line = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        { Namespace: metricsNamespace, Dimensions: dimensions, Metrics: [{ Name: name, Unit: 'Count' }] },
      ],
    },
    ...dimension,
    [name]: value,
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}
