// The wiring's schedules in AWS: one EventBridge Scheduler schedule per ScheduleSpec, `rate(N minutes)`
// or `cron(0 H * * ? *)` in UTC, flexible window off, sending the function a ScheduledRun
// ({schedule, time} with Scheduler's own scheduled time). Each has a role that may invoke only its
// function (and send only to its own dead-letter queue), a retry policy, and a dead-letter queue for
// the runs Scheduler could not deliver. The interval or hour is the CDK context named by the spec's
// setting (`-c SAFETY_NET_SYNC_MINUTES=15`), else its default, and reaches the function as that setting.
import { Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ScheduleSpec } from '../functions/wiring';

/** What a schedule's setting resolves to, and the expression Scheduler runs it on. */
export interface ScheduleTiming {
  setting: string;
  /** The setting's value as the function gets it (minutes may be fractional; the schedule rounds up). */
  value: number;
  expression: string;
  /** How long Scheduler keeps retrying one run: no longer than the interval, so runs never pile up. */
  maximumEventAgeSeconds: number;
}

/** The timing of `spec` with the setting's value from `lookup` (a CDK context); throws naming the setting. */
export function scheduleTiming(spec: ScheduleSpec, lookup: (setting: string) => unknown): ScheduleTiming {
  const given = (setting: string): number | undefined => {
    const raw = lookup(setting);
    if (raw === undefined || raw === null || raw === '') return undefined;
    const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
    if (!Number.isFinite(value)) throw new Error(`${setting} must be a number, not ${String(raw)}`);
    return value;
  };
  if ('minutesSetting' in spec.every) {
    const setting = spec.every.minutesSetting;
    const value = given(setting) ?? spec.every.defaultMinutes;
    if (!(value > 0)) throw new Error(`${setting} (schedule ${spec.name}) must be more than 0 minutes`);
    // Scheduler's rate is whole minutes, at least one ("rate(1 minute)" is singular).
    const minutes = Math.max(1, Math.ceil(value));
    return {
      setting,
      value,
      expression: `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`,
      // Scheduler accepts 60 s to 24 h.
      maximumEventAgeSeconds: Math.min(86_400, Math.max(60, minutes * 60)),
    };
  }
  const setting = spec.every.dailyHourUtcSetting;
  const value = given(setting) ?? spec.every.defaultHour;
  if (!Number.isInteger(value) || value < 0 || value > 23)
    throw new Error(`${setting} (schedule ${spec.name}) must be a whole hour from 0 to 23, not ${value}`);
  return { setting, value, expression: `cron(0 ${value} * * ? *)`, maximumEventAgeSeconds: 3600 };
}

export interface ScheduleResources {
  schedule: scheduler.CfnSchedule;
  role: iam.Role;
  deadLetterQueue: sqs.Queue;
  timing: ScheduleTiming;
}

export interface SchedulesProps {
  schedules: readonly ScheduleSpec[];
  /** The functions by wiring name. */
  functionOf: (name: string) => lambda.Function;
  /** A setting's CDK context value (undefined: the spec's default). */
  lookup: (setting: string) => unknown;
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Scheduler's retries of a run it could not deliver (throttled, function unavailable). */
export const scheduleRetryAttempts = 3;

export class Schedules extends Construct {
  readonly byName: ReadonlyMap<string, ScheduleResources>;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    const byName = new Map<string, ScheduleResources>();
    for (const spec of props.schedules) {
      const fn = props.functionOf(spec.function);
      const timing = scheduleTiming(spec, props.lookup);
      const name = pascal(spec.name);
      fn.addEnvironment(timing.setting, String(timing.value));

      const deadLetterQueue = new sqs.Queue(this, `${name}DeadLetterQueue`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        // A missed run is redone by the next one; the queue only tells that runs were missed.
        removalPolicy: RemovalPolicy.DESTROY,
      });
      Validations.of(deadLetterQueue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: `This is the dead-letter queue of schedule ${spec.name} itself: runs Scheduler could not deliver.`,
      });

      const role = new iam.Role(this, `${name}Role`, {
        description: `mailvet schedule ${spec.name}: invokes ${spec.function} only`,
        // Only Scheduler, and only for schedules of this account (the confused-deputy guard AWS advises).
        assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
          conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
        }),
      });
      role.addToPolicy(
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
      );
      role.addToPolicy(
        new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [deadLetterQueue.queueArn] }),
      );

      const schedule = new scheduler.CfnSchedule(this, `${name}Schedule`, {
        description: spec.description,
        scheduleExpression: timing.expression,
        scheduleExpressionTimezone: 'UTC',
        flexibleTimeWindow: { mode: 'OFF' },
        state: 'ENABLED',
        target: {
          arn: fn.functionArn,
          roleArn: role.roleArn,
          // Scheduler fills in the time each run was scheduled for.
          input: JSON.stringify({ schedule: spec.name, time: '<aws.scheduler.scheduled-time>' }),
          retryPolicy: {
            maximumRetryAttempts: scheduleRetryAttempts,
            maximumEventAgeInSeconds: timing.maximumEventAgeSeconds,
          },
          deadLetterConfig: { arn: deadLetterQueue.queueArn },
        },
      });
      byName.set(spec.name, { schedule, role, deadLetterQueue, timing });
    }
    this.byName = byName;
  }
}
