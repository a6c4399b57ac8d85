// Alarms that fire on what actually goes wrong in a deployment, all notifying the alarm topic of
// StatefulStack: bulk jobs failing (JobsFailed), Lambda throttles, DynamoDB throttled requests, and the
// API's p99 latency. (API 5xx and function errors are in lib/operations.ts; dead-letter queues in
// lib/stateful-stack.ts.) alarmOn() and alarmOnCount() add one more, for any metric.
import { Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricsNamespace } from '../functions/metrics';
import { functionGroupMetrics } from './function-alarm-groups';

export interface AlarmOptions {
  /** The API's p99 latency that alarms, over 3 of 5 minutes (context `apiLatencyP99Ms`); default 10 s. */
  apiLatencyP99Ms?: number;
}

export interface AlarmsProps extends AlarmOptions {
  alarmTopicArn: string;
  api: apigwv2.HttpApi;
  functions: ReadonlyMap<string, lambda.IFunction>;
  tableName: string;
}

export interface AlarmOnOptions {
  description: string;
  /** Default 1. */
  threshold?: number;
  /** Periods looked at, and how many must breach (default 1 of 1). */
  evaluationPeriods?: number;
  datapointsToAlarm?: number;
  /** Default: at or above the threshold. */
  comparisonOperator?: cloudwatch.ComparisonOperator;
}

/** The DynamoDB operations whose ThrottledRequests count; ten is the most one alarm's math may hold. */
const tableOperations = [
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
] as const;

const defaultApiLatencyP99Ms = 10_000;

export class Alarms extends Construct {
  private readonly notify: cloudwatchActions.SnsAction;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.notify = new cloudwatchActions.SnsAction(
      sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn),
    );
    const fiveMinutes = Duration.minutes(5);

    // The fail* consumers drain the dead-letter queues within seconds, so a failed job shows here.
    this.alarmOnCount('JobsFailed', 'mailvet: a bulk job failed');

    for (const { group, names, metric } of functionGroupMetrics(
      props.functions,
      (fn) => fn.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }),
      'throttled invocations',
    ))
      this.alarmOn(`FunctionThrottleAlarm${group}`, metric, {
        description: `mailvet ${names.join(', ')}: invocations throttled (reserved or account concurrency reached)`,
      });

    const usingMetrics: Record<string, cloudwatch.IMetric> = {};
    tableOperations.forEach((operation, index) => {
      usingMetrics[`t${index}`] = new cloudwatch.Metric({
        namespace: 'AWS/DynamoDB',
        metricName: 'ThrottledRequests',
        dimensionsMap: { TableName: props.tableName, Operation: operation },
        statistic: 'Sum',
        period: fiveMinutes,
      });
    });
    this.alarmOn(
      'TableThrottleAlarm',
      new cloudwatch.MathExpression({
        expression: Object.keys(usingMetrics).join(' + '),
        usingMetrics,
        label: 'DynamoDB throttled requests',
        period: fiveMinutes,
      }),
      { description: 'mailvet table: DynamoDB throttled requests (partition or account throughput reached)' },
    );

    const p99 = props.apiLatencyP99Ms ?? defaultApiLatencyP99Ms;
    this.alarmOn(
      'ApiLatencyAlarm',
      props.api.metricLatency({ period: Duration.minutes(1), statistic: 'p99' }),
      {
        description: `mailvet API: p99 latency at or above ${p99} ms`,
        threshold: p99,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
      },
    );
  }

  /** An alarm on `metric` that notifies the alarm topic; missing data (nothing happened) is not breaching. */
  alarmOn(id: string, metric: cloudwatch.IMetric, options: AlarmOnOptions): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      alarmDescription: options.description,
      threshold: options.threshold ?? 1,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm,
      comparisonOperator:
        options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.notify);
    return alarm;
  }

  /** An alarm when a mailvet count metric (functions/metrics.ts) sums to `threshold` or more in 5 minutes. */
  alarmOnCount(
    metricName: string,
    description: string,
    options: Omit<AlarmOnOptions, 'description'> & { dimensions?: Record<string, string> } = {},
  ): cloudwatch.Alarm {
    const metric = new cloudwatch.Metric({
      namespace: metricsNamespace,
      metricName,
      dimensionsMap: options.dimensions,
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
    return this.alarmOn(`${metricName}Alarm`, metric, { ...options, description });
  }
}
