// Per-function alarms in groups: one metric-math alarm sums a metric over up to ten functions (the most
// one alarm's math may hold), named in its description. One alarm per function would put 124 alarms in
// the API stack, past CloudFormation's 500 resources a stack with the people, Safety Net and mailbox
// functions; grouped, the same failures still alarm, and the description says where to look.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

const groupSize = 10;

export interface FunctionGroupMetric {
  /** 1-based, for the alarm's construct id. */
  group: number;
  names: string[];
  metric: cloudwatch.MathExpression;
}

/** The functions in wiring order, ten at a time, each group's `metricOf` summed (SUM ignores a function with no data). */
export function functionGroupMetrics(
  functions: ReadonlyMap<string, lambda.IFunction>,
  metricOf: (fn: lambda.IFunction) => cloudwatch.IMetric,
  label: string,
  period: Duration = Duration.minutes(5),
): FunctionGroupMetric[] {
  const entries = [...functions];
  const groups: FunctionGroupMetric[] = [];
  for (let start = 0; start < entries.length; start += groupSize) {
    const slice = entries.slice(start, start + groupSize);
    const usingMetrics = Object.fromEntries(slice.map(([, fn], i) => [`f${i}`, metricOf(fn)]));
    groups.push({
      group: groups.length + 1,
      names: slice.map(([name]) => name),
      metric: new cloudwatch.MathExpression({
        expression: `SUM([${Object.keys(usingMetrics).join(', ')}])`,
        usingMetrics,
        label,
        period,
      }),
    });
  }
  return groups;
}
