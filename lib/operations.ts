// What an operator watches after `cdk deploy`: a CloudWatch dashboard (job transitions, rows per minute,
// probe rate, webhook outcomes, API 4xx/5xx) and the API's alarms, which notify the alarm topic
// StatefulStack owns (with the queue alarms).
import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricsNamespace, type MetricName } from '../functions/metrics';
import { functionGroupMetrics } from './function-alarm-groups';

export interface OperationsProps {
  api: apigwv2.HttpApi;
  functions: ReadonlyMap<string, lambda.IFunction>;
  alarmTopicArn: string;
}

const count = (name: MetricName, label: string, dimensions?: Record<string, string>) =>
  new cloudwatch.Metric({
    namespace: metricsNamespace,
    metricName: name,
    dimensionsMap: dimensions,
    statistic: 'Sum',
    period: Duration.minutes(1),
    label,
  });

export class Operations extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const topic = sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn);
    const notify = new cloudwatchActions.SnsAction(topic);

    const clientErrors = props.api.metricClientError({ period: Duration.minutes(1), statistic: 'Sum' });
    const serverErrors = props.api.metricServerError({ period: Duration.minutes(1), statistic: 'Sum' });
    serverErrors
      .createAlarm(this, 'ApiServerErrorAlarm', {
        alarmDescription: 'mailvet API: 5xx answers',
        threshold: 5,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      })
      .addAlarmAction(notify);
    for (const { group, names, metric } of functionGroupMetrics(
      props.functions,
      (fn) => fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      'failed invocations',
    ))
      metric
        .createAlarm(this, `FunctionErrorAlarm${group}`, {
          alarmDescription: `mailvet ${names.join(', ')}: invocations failed`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        })
        .addAlarmAction(notify);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(6),
    });
    const graph = (title: string, left: cloudwatch.IMetric[]) =>
      new cloudwatch.GraphWidget({ title, left, width: 12, height: 6 });
    // Counts of transitions (events), not of jobs in each state: the metrics are emitted when a job
    // moves, and no process walks the jobs to report how many sit in a state.
    this.dashboard.addWidgets(
      graph('Bulk job transitions per minute (jobs that entered each state, not jobs in it)', [
        count('JobsCreated', 'created'),
        count('JobsStarted', 'started processing'),
        count('JobsCompleted', 'completed'),
        count('JobsFailed', 'failed'),
        count('JobsDeleted', 'deleted'),
      ]),
      graph('Rows validated per minute', [count('RowsValidated', 'rows')]),
    );
    this.dashboard.addWidgets(
      graph('SMTP mailbox probes per minute', [count('MailboxProbes', 'probes')]),
      graph(
        'Webhook outcomes (per minute)',
        (['delivered', 'retry', 'failed', 'refused'] as const).map((outcome) =>
          count('WebhookDeliveries', outcome, { Outcome: outcome }),
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph('API answers: 4xx and 5xx per minute', [clientErrors, serverErrors]),
      graph(
        'Function errors (per minute)',
        [...props.functions.values()].map((fn) =>
          fn.metricErrors({ period: Duration.minutes(1), statistic: 'Sum' }),
        ),
      ),
    );
  }
}
