// Connected mailboxes in the stack: the daily placement schedule, the send and check queues with their
// dead-letter queues and alarms, KMS only for the functions that seal or open credentials, and the
// functions that reach mail servers (outbound 587/465 and 993/143, never 25) named in the wiring.
import { Stack, type CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { functions } from '../../functions/wiring';
import { mailboxServerFunctions } from '../../functions/wiring/mailboxes';
import { synthMailvet } from './synth';

type Json = Record<string, unknown>;
const { stacks, api, data } = synthMailvet();

const roleStatements = (name: string): Json[] => {
  const role = stacks.api.functions.get(name)!.role!;
  const roleId = Stack.of(role).getLogicalId(role.node.defaultChild as CfnElement);
  return Object.values(api.findResources('AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement);
};
const actionsOf = (name: string) => roleStatements(name).flatMap((s) => [s.Action].flat() as string[]);
const all = JSON.stringify({ api: api.toJSON(), data: data.toJSON() });

describe('connected mailboxes in the stack', () => {
  test('the placementDaily schedule runs startPlacementDay once a day at 06:00 UTC, with retries and a DLQ', () => {
    api.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 6 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: Match.objectLike({
        Arn: Match.anyValue(),
        DeadLetterConfig: Match.objectLike({ Arn: Match.anyValue() }),
        RetryPolicy: Match.anyValue(),
        Input: Match.stringLikeRegexp('placementDaily'),
      }),
    });
  });

  test.each(['placementSends', 'placementChecks'])(
    'queue %s has a dead-letter queue and an alarm on it',
    (queue) => {
      expect(all).toContain(`-${queue}`);
      const queues = { ...data.findResources('AWS::SQS::Queue'), ...api.findResources('AWS::SQS::Queue') };
      const main = Object.values(queues).find(
        (q) =>
          JSON.stringify(q.Properties.QueueName ?? '').includes(`-${queue}"`) && q.Properties.RedrivePolicy,
      );
      expect(main?.Properties.RedrivePolicy).toMatchObject({ maxReceiveCount: 3 });
      const alarms = JSON.stringify({
        ...data.findResources('AWS::CloudWatch::Alarm'),
        ...api.findResources('AWS::CloudWatch::Alarm'),
      });
      expect(alarms.toLowerCase()).toContain(queue.toLowerCase());
    },
  );

  test('KMS: connectMailbox may only encrypt, the two consumers only decrypt, no other mailbox function either', () => {
    const kms = (name: string) => actionsOf(name).filter((a) => a.startsWith('kms:'));
    expect(kms('connectMailbox')).toEqual(['kms:Encrypt']);
    expect(kms('sendPlacementTests')).toEqual(['kms:Decrypt']);
    expect(kms('checkPlacement')).toEqual(['kms:Decrypt']);
    expect(kms('disconnectMailbox')).toEqual([]);
    expect(kms('startPlacementDay')).toEqual([]);
  });

  test('the fan-out only queries the table and sends to the two queues', () => {
    const actions = actionsOf('startPlacementDay');
    expect(new Set(actions.filter((a) => a.startsWith('dynamodb:')))).toEqual(new Set(['dynamodb:Query']));
    expect(actions.filter((a) => a.startsWith('sqs:')).length).toBeGreaterThan(0);
    expect(actions.some((a) => a.startsWith('secretsmanager:') || a.startsWith('ssm:'))).toBe(false);
  });

  test('only the functions that log in to mail servers are named for outbound 587/993; none runs in a VPC or needs 25', () => {
    expect([...mailboxServerFunctions]).toEqual(['connectMailbox', 'sendPlacementTests', 'checkPlacement']);
    for (const name of mailboxServerFunctions) expect(functions.some((f) => f.name === name)).toBe(true);
    // the probe SOCKS pool (port 25 egress) is not theirs
    for (const name of mailboxServerFunctions)
      expect(actionsOf(name).some((a) => a.startsWith('secretsmanager:'))).toBe(false);
    for (const fn of Object.values(api.findResources('AWS::Lambda::Function')))
      expect(fn.Properties.VpcConfig).toBeUndefined();
  });
});
