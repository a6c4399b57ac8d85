// The wiring's schedules as EventBridge Scheduler schedules, built from fixture specs in a small stack
// with a fixture function: the rate or cron expression from the setting's context (rounded up to whole
// minutes), UTC, no flexible window, a ScheduledRun input, retries and a dead-letter queue, and a role
// that may invoke only that function. Plus the wiring checks of schedules, and the real stack's.
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as wiring from '../../functions/wiring';
import type { ScheduleSpec } from '../../functions/wiring';
import { repoRoot } from '../../lib/mailvet-function';
import { scheduleRetryAttempts, Schedules, scheduleTiming } from '../../lib/schedules';
import { checkWiring } from '../../lib/wiring-checks';
import { bareApp, nagErrorsOf, synthMailvet, synthWithNag } from './synth';

type Json = Record<string, unknown>;
const sync: ScheduleSpec = {
  name: 'fixtureSync',
  function: 'fixtureScheduled',
  description: 'fixture: every few minutes',
  every: { minutesSetting: 'FIXTURE_SYNC_MINUTES', defaultMinutes: 15 },
};
const digest: ScheduleSpec = {
  name: 'fixtureDigest',
  function: 'otherScheduled',
  description: 'fixture: daily',
  every: { dailyHourUtcSetting: 'FIXTURE_DIGEST_HOUR_UTC', defaultHour: 6 },
};

function fixtureStack(app: App, context: Record<string, unknown> = {}) {
  const stack = new Stack(app, 'Fixture');
  const fns = new Map<string, lambda.Function>();
  for (const name of ['fixtureScheduled', 'otherScheduled'])
    fns.set(
      name,
      new lambda.Function(stack, name, {
        runtime: lambda.Runtime.NODEJS_24_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline('exports.handler = async () => undefined;'),
      }),
    );
  const schedules = new Schedules(stack, 'Schedules', {
    schedules: [sync, digest],
    functionOf: (name) => fns.get(name)!,
    lookup: (setting) => context[setting],
  });
  return { stack, fns, schedules };
}

const idOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

describe('a schedule in AWS', () => {
  const app = bareApp();
  const { stack, fns, schedules } = fixtureStack(app, { FIXTURE_SYNC_MINUTES: '0.1' });
  const template = Template.fromStack(stack);
  const scheduleOf = (name: string): Json => {
    const resource =
      template.toJSON().Resources[
        idOf(stack, { node: { defaultChild: schedules.byName.get(name)!.schedule } })
      ];
    return (resource as { Properties: Json }).Properties;
  };

  test('runs every N minutes (rounded up to at least one) or daily at the hour, in UTC, without a flexible window', () => {
    template.resourceCountIs('AWS::Scheduler::Schedule', 2);
    expect(scheduleOf('fixtureSync')).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
    });
    expect(scheduleOf('fixtureDigest')).toMatchObject({
      ScheduleExpression: 'cron(0 6 * * ? *)',
      FlexibleTimeWindow: { Mode: 'OFF' },
    });
  });

  test("sends the function a ScheduledRun with Scheduler's scheduled time, retries, then a dead-letter queue", () => {
    const target = scheduleOf('fixtureSync').Target as Json;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [idOf(stack, fns.get('fixtureScheduled')!), 'Arn'] });
    expect(JSON.parse(target.Input as string)).toEqual({
      schedule: 'fixtureSync',
      time: '<aws.scheduler.scheduled-time>',
    });
    expect(target.RetryPolicy).toEqual({
      MaximumRetryAttempts: scheduleRetryAttempts,
      MaximumEventAgeInSeconds: 60,
    });
    const dlq = schedules.byName.get('fixtureSync')!.deadLetterQueue;
    expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [idOf(stack, dlq), 'Arn'] } });
    expect((scheduleOf('fixtureDigest').Target as Json).RetryPolicy).toEqual({
      MaximumRetryAttempts: scheduleRetryAttempts,
      MaximumEventAgeInSeconds: 3600,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86400,
    });
  });

  test("each schedule's role is Scheduler's, of this account, and may invoke only its function and send only to its DLQ", () => {
    for (const [name, fnName] of [
      ['fixtureSync', 'fixtureScheduled'],
      ['fixtureDigest', 'otherScheduled'],
    ] as const) {
      const { role, deadLetterQueue } = schedules.byName.get(name)!;
      const roleId = idOf(stack, role);
      expect((scheduleOf(name).Target as Json).RoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
      const roleProps = (template.toJSON().Resources[roleId] as { Properties: Json }).Properties;
      expect(roleProps.AssumeRolePolicyDocument).toEqual({
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          },
        ],
      });
      const statements = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
        .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement);
      expect(statements).toEqual([
        {
          Effect: 'Allow',
          Action: 'lambda:InvokeFunction',
          Resource: { 'Fn::GetAtt': [idOf(stack, fns.get(fnName)!), 'Arn'] },
        },
        {
          Effect: 'Allow',
          Action: 'sqs:SendMessage',
          Resource: { 'Fn::GetAtt': [idOf(stack, deadLetterQueue), 'Arn'] },
        },
      ]);
    }
  });

  test("gives the function the schedule's setting, as the runtime reads it", () => {
    const env = (name: string) =>
      (
        (template.toJSON().Resources[idOf(stack, fns.get(name)!)] as { Properties: Json }).Properties
          .Environment as { Variables: Json }
      ).Variables;
    expect(env('fixtureScheduled')).toEqual({ FIXTURE_SYNC_MINUTES: '0.1' });
    expect(env('otherScheduled')).toEqual({ FIXTURE_DIGEST_HOUR_UTC: '6' });
  });

  test('leaves cdk-nag nothing to report but the fixture functions', () => {
    const { report } = synthWithNag((a) => fixtureStack(a));
    // The inline fixture functions use the default role (IAM4) and no DLQ of their own: not ours.
    expect(nagErrorsOf(report).filter((rule) => !/^AwsSolutions-(IAM4|L1)\b/.test(rule))).toEqual([]);
  });
});

describe('scheduleTiming', () => {
  test('takes the context, else the default; rounds minutes up; rate(1 minute) is singular', () => {
    expect(scheduleTiming(sync, () => undefined).expression).toBe('rate(15 minutes)');
    expect(scheduleTiming(sync, () => '2.5').expression).toBe('rate(3 minutes)');
    expect(scheduleTiming(sync, () => 1).expression).toBe('rate(1 minute)');
    expect(scheduleTiming(sync, () => '90').maximumEventAgeSeconds).toBe(5400);
    expect(scheduleTiming(digest, () => '23').expression).toBe('cron(0 23 * * ? *)');
  });
  test('stops the synth on a value that cannot be a schedule, naming the setting', () => {
    expect(() => scheduleTiming(sync, () => 'often')).toThrow(/FIXTURE_SYNC_MINUTES must be a number/);
    expect(() => scheduleTiming(sync, () => '0')).toThrow(/FIXTURE_SYNC_MINUTES .* more than 0/);
    expect(() => scheduleTiming(digest, () => '24')).toThrow(/FIXTURE_DIGEST_HOUR_UTC .* 0 to 23/);
    expect(() => scheduleTiming(digest, () => '6.5')).toThrow(/FIXTURE_DIGEST_HOUR_UTC/);
  });
});

describe('the wiring checks of schedules', () => {
  const withSchedules = (schedules: ScheduleSpec[]) => ({ ...wiring, schedules });
  const real = wiring.functions[0]!.name;
  test('accept a schedule of a wiring function', () => {
    expect(() => checkWiring(withSchedules([{ ...sync, function: real }]), repoRoot)).not.toThrow();
  });
  test('reject a schedule of an unknown function, a name used twice, and bad defaults', () => {
    expect(() => checkWiring(withSchedules([sync]), repoRoot)).toThrow(
      /schedule fixtureSync names unknown function fixtureScheduled/,
    );
    expect(() =>
      checkWiring(
        withSchedules([
          { ...sync, function: real },
          { ...sync, function: real },
        ]),
        repoRoot,
      ),
    ).toThrow(/schedule fixtureSync is defined twice/);
    expect(() =>
      checkWiring(
        withSchedules([{ ...digest, function: real, every: { dailyHourUtcSetting: 'H', defaultHour: 25 } }]),
        repoRoot,
      ),
    ).toThrow(/defaultHour 25/);
    expect(() =>
      checkWiring(
        withSchedules([
          { ...sync, function: real, every: { minutesSetting: 'sync-minutes', defaultMinutes: 5 } },
        ]),
        repoRoot,
      ),
    ).toThrow(/not an environment variable name/);
  });
});

describe('the real stack', () => {
  test('has exactly one schedule per wiring schedule', () => {
    const { api } = synthMailvet();
    api.resourceCountIs('AWS::Scheduler::Schedule', wiring.schedules.length);
  });
});
