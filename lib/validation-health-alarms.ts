// Alarms on what the validator can no longer see for itself: a resolver that answers none of the DNS
// canary domains (every verdict it gives would be dns_unavailable), and a probing IP that a large share
// of MX hosts refuse ("about us, not the mailbox": a blocklisted IP probes nothing).
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { metricsNamespace, type MetricName } from '../functions/metrics';
import type { Alarms } from './alarms';

export interface ValidationHealthAlarmOptions {
  /** Share (0..1) of probed MX hosts refusing us within an hour above which the alarm fires. */
  refusalShareThreshold?: number;
  /** Fewer probed hosts than this in the hour: too few to judge, the alarm stays quiet. */
  minimumProbedHosts?: number;
}

const hourlySum = (name: MetricName) =>
  new cloudwatch.Metric({
    namespace: metricsNamespace,
    metricName: name,
    statistic: 'Sum',
    period: Duration.hours(1),
  });

/** Adds both alarms to the stack's alarms (they notify its alarm topic). */
export function addValidationHealthAlarms(alarms: Alarms, options: ValidationHealthAlarmOptions = {}): void {
  const threshold = options.refusalShareThreshold ?? 0.2;
  const minimum = options.minimumProbedHosts ?? 20;

  // a broken check is counted at most every 30 s per process: one in five minutes is already a signal
  const dnsUnavailable: MetricName = 'DnsUnavailable';
  alarms.alarmOnCount(
    dnsUnavailable,
    'mailvet validator: the DNS resolver answers none of DNS_CANARY_DOMAINS; domains read as some_risk / dns_unavailable',
  );

  // refusing / probed per hour, judged only on enough hosts (0 otherwise, so a quiet hour never alarms)
  const share = new cloudwatch.MathExpression({
    expression: `IF(probed >= ${minimum}, refusing / probed, 0)`,
    usingMetrics: { refusing: hourlySum('RefusingHosts'), probed: hourlySum('ProbedHosts') },
    period: Duration.hours(1),
    label: 'share of probed MX hosts refusing us (per hour)',
  });
  alarms.alarmOn('ProbeRefusalShareAlarm', share, {
    description: `mailvet probe stage: more than ${Math.round(threshold * 100)}% of probed MX hosts refused the probing IP within an hour ("about us" answers: blocklisting, policy); mailbox verdicts fall back to DNS`,
    threshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
  });
}
