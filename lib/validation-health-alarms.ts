// Alarms on what the validator can no longer see for itself: a resolver that answers none of the DNS
// canary domains (every verdict it gives would be dns_unavailable), and a probing IP that a large share
// of MX hosts refuse ("about us, not the mailbox": a blocklisted IP probes nothing). Both notify the
// alarm topic, like the other operations alarms.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricsNamespace, type MetricName } from '../functions/metrics';

export interface ValidationHealthAlarmsProps {
  alarmTopicArn: string;
  /** Share (0..1) of probed MX hosts refusing us within an hour above which the alarm fires. */
  refusalShareThreshold?: number;
  /** Fewer probed hosts than this in the hour: too few to judge, the alarm stays quiet. */
  minimumProbedHosts?: number;
}

const sum = (name: MetricName, period: Duration) =>
  new cloudwatch.Metric({ namespace: metricsNamespace, metricName: name, statistic: 'Sum', period });

export class ValidationHealthAlarms extends Construct {
  readonly dnsUnavailable: cloudwatch.Alarm;
  readonly probeRefusals: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ValidationHealthAlarmsProps) {
    super(scope, id);
    const notify = new cloudwatchActions.SnsAction(
      sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn),
    );
    const threshold = props.refusalShareThreshold ?? 0.2;
    const minimum = props.minimumProbedHosts ?? 20;

    // a broken check is counted at most every 30 s per process: one in five minutes is already a signal
    this.dnsUnavailable = sum('DnsUnavailable', Duration.minutes(5)).createAlarm(
      this,
      'DnsUnavailableAlarm',
      {
        alarmDescription:
          'mailvet validator: the DNS resolver answers none of DNS_CANARY_DOMAINS; domains read as some_risk / dns_unavailable',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    this.dnsUnavailable.addAlarmAction(notify);

    // refusing / probed per hour, judged only on enough hosts (0 otherwise, so a quiet hour never alarms)
    const share = new cloudwatch.MathExpression({
      expression: `IF(probed >= ${minimum}, refusing / probed, 0)`,
      usingMetrics: {
        refusing: sum('RefusingHosts', Duration.hours(1)),
        probed: sum('ProbedHosts', Duration.hours(1)),
      },
      period: Duration.hours(1),
      label: 'share of probed MX hosts refusing us (per hour)',
    });
    this.probeRefusals = share.createAlarm(this, 'ProbeRefusalShareAlarm', {
      alarmDescription: `mailvet probe stage: more than ${Math.round(threshold * 100)}% of probed MX hosts refused the probing IP within an hour ("about us" answers: blocklisting, policy); mailbox verdicts fall back to DNS`,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.probeRefusals.addAlarmAction(notify);
  }
}
