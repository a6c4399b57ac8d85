// The Safety Net connections in the synthesized stacks: the two schedules (sync every 15 minutes,
// look-ahead every 5), each invoking its fan-out function only; the safetynet queue with its DLQ and
// the DLQ's alarms; the consumer; and KMS only for the three functions that seal or open a grant.
import { Stack, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as wiring from '../../functions/wiring';
import { createMailvet, type MailvetStacks } from '../../lib/mailvet';
import { bareApp } from './synth';

type Json = Record<string, unknown>;
let stacks: MailvetStacks;
let api: Template;
let data: Template;

beforeAll(() => {
  stacks = createMailvet(bareApp());
  api = Template.fromStack(stacks.api);
  data = Template.fromStack(stacks.stateful);
});

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId(construct.node.defaultChild as CfnElement);
const fnArn = (name: string) => ({ 'Fn::GetAtt': [idOf(stacks.api.functions.get(name)!), 'Arn'] });

function statementsOf(name: string): Json[] {
  const role = stacks.api.functions.get(name)!.role!;
  const roleId = Stack.of(role).getLogicalId(role.node.defaultChild as CfnElement);
  return Object.values(api.findResources('AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement);
}

test('the sync runs every 15 minutes and the look-ahead every 5, each invoking only its fan-out', () => {
  for (const [name, fn, rate] of [
    ['SafetyNetSync', 'safetyNetSyncSchedule', 'rate(15 minutes)'],
    ['SafetyNetLookahead', 'safetyNetLookaheadSchedule', 'rate(5 minutes)'],
  ] as const) {
    api.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: rate,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: Match.objectLike({
        Arn: fnArn(fn),
        Input: Match.stringLikeRegexp(`"schedule":"${name.charAt(0).toLowerCase()}${name.slice(1)}"`),
      }),
    });
  }
  expect(wiring.schedules.map((s) => s.name)).toEqual(
    expect.arrayContaining(['safetyNetSync', 'safetyNetLookahead']),
  );
});

test('the safetynet queue has a dead-letter queue after 8 receives, alarms on it, and one consumer', () => {
  const queues = data.findResources('AWS::SQS::Queue');
  const [queueId, queue] = Object.entries(queues).find(([, q]) =>
    JSON.stringify(q.Properties.QueueName).includes('-safetynet"'),
  )!;
  expect(queue.Properties).toMatchObject({
    VisibilityTimeout: 1800,
    RedrivePolicy: { maxReceiveCount: 8 },
  });
  const dlqId = (queue.Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': string[] } })
    .deadLetterTargetArn['Fn::GetAtt'][0]!;
  expect(JSON.stringify(queues[dlqId]!.Properties.QueueName)).toContain('-safetynet-dlq');
  const alarms = Object.values(data.findResources('AWS::CloudWatch::Alarm')).filter((a) =>
    String(a.Properties.AlarmDescription).startsWith('mailvet safetynet:'),
  );
  // a message reaching the DLQ, and messages left on it; the queue itself alarms on its oldest message
  expect(
    alarms.filter((a) => JSON.stringify(a.Properties.Dimensions).includes(dlqId)).length,
  ).toBeGreaterThanOrEqual(1);
  expect(alarms.some((a) => JSON.stringify(a.Properties.Dimensions).includes(queueId))).toBe(true);
  api.resourcePropertiesCountIs(
    'AWS::Lambda::EventSourceMapping',
    { FunctionName: { Ref: idOf(stacks.api.functions.get('runSafetyNet')!) } },
    1,
  );
});

test('KMS only for the callback (seal), the webhook (open) and the consumer (both)', () => {
  const kmsOf = (name: string) =>
    statementsOf(name)
      .filter((s) => JSON.stringify(s.Action).includes('kms:'))
      .map((s) => s.Action);
  expect(kmsOf('integrationCallback')).toEqual(['kms:Encrypt']);
  expect(kmsOf('integrationWebhook')).toEqual(['kms:Decrypt']);
  expect(kmsOf('runSafetyNet')).toEqual([['kms:Decrypt', 'kms:Encrypt']]);
  for (const name of [
    'startIntegration',
    'listIntegrations',
    'syncIntegration',
    'deleteIntegration',
    'listSafetyNetPreventions',
    'getSafetyNetAllowlist',
    'putSafetyNetAllowlist',
    'deleteSafetyNetAllowlist',
    'safetyNetSyncSchedule',
    'safetyNetLookaheadSchedule',
  ])
    expect(kmsOf(name)).toEqual([]);
});

test("the OAuth callback sends the browser back to the console's origin", () => {
  const fn = api.toJSON().Resources[idOf(stacks.api.functions.get('integrationCallback')!)] as {
    Properties: { Environment: { Variables: Json } };
  };
  expect(fn.Properties.Environment.Variables.CONSOLE_URL).toBeDefined();
});

test("only the functions that use mailvet's OAuth clients may read the platform credentials", () => {
  const readers = [...stacks.api.functions.keys()].filter((name) =>
    statementsOf(name).some((s) => JSON.stringify(s.Action).includes('secretsmanager:GetSecretValue')),
  );
  expect(
    readers.filter((name) => wiring.functionByName(name).description.match(/integrations|safetynet/i)),
  ).toEqual(['startIntegration', 'integrationCallback', 'runSafetyNet']);
});
