// The deployment contexts of issue-level operations: mailbox probing (names checked at synth, the SOCKS
// pool's secret readable by the probing functions alone), invite emails through SES, the alarms that
// fire and the API's reserved concurrency. Both stacks synthesized plain and fully configured, with
// cdk-nag's AwsSolutions pack on the configured one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as wiring from '../../functions/wiring';
import { apiFunctionNames, defaultApiReservedConcurrency } from '../../lib/concurrency';
import { inviteIdentityOf } from '../../lib/invites';
import { contextFlag, createMailvet, type MailvetOptions, type MailvetStacks } from '../../lib/mailvet';
import { repoRoot } from '../../lib/mailvet-function';
import { probingFunctions, socksSecretOf } from '../../lib/probing';
import { bareApp, nagErrorsOf, synthWithNag } from './synth';

type Json = Record<string, unknown>;
interface Synthesized {
  stacks: MailvetStacks;
  api: Template;
  data: Template;
  nagErrors: string[];
}

function synth(options: MailvetOptions, extend?: (stacks: MailvetStacks) => void): Synthesized {
  let stacks!: MailvetStacks;
  const { report } = synthWithNag((app) => {
    stacks = createMailvet(app, options);
    extend?.(stacks);
  });
  return {
    stacks,
    api: Template.fromStack(stacks.api),
    data: Template.fromStack(stacks.stateful),
    nagErrors: nagErrorsOf(report),
  };
}

const probing = {
  enabled: true,
  heloName: 'probe.mail.acme-mail.io',
  mailFrom: 'probe@mail.acme-mail.io',
  socksSecret: 'mailvet/socks-pool',
};
let plain: Synthesized;
let configured: Synthesized;

beforeAll(() => {
  plain = synth({});
  configured = synth(
    {
      alarmEmail: 'ops@acme-mail.io',
      probing,
      invites: { from: 'invites@acme-mail.io' },
      apiReservedConcurrency: 7,
      alarms: { apiLatencyP99Ms: 4000 },
    },
    (stacks) =>
      stacks.api.alarms.alarmOnCount('ProbeEgressUnhealthy', 'test: a custom count', { threshold: 3 }),
  );
});

/** Intrinsics as text: `${Ref}` for references, joins concatenated, imports as `import:<name>`. */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if ('Ref' in v) return `\${${String(v.Ref)}}`;
  if ('Fn::ImportValue' in v) return `import:${String(v['Fn::ImportValue'])}`;
  if ('Fn::Join' in v) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(sep);
  }
  return JSON.stringify(value);
}
const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

function logicalId(s: Synthesized, name: string): string {
  const fn = s.stacks.api.functions.get(name)!;
  return Stack.of(fn).getLogicalId(fn.node.defaultChild as never);
}
function roleId(s: Synthesized, name: string): string {
  const role = s.stacks.api.functions.get(name)!.role!;
  return Stack.of(role).getLogicalId(role.node.defaultChild as never);
}
function environment(s: Synthesized, name: string): Record<string, string> {
  const fn = s.api.toJSON().Resources[logicalId(s, name)] as {
    Properties: { Environment: { Variables: Json } };
  };
  return fn.Properties.Environment.Variables as Record<string, string>;
}
/** Every statement on a function's role: action -> statements (resources rendered). */
function statements(
  s: Synthesized,
  name: string,
): { actions: string[]; resources: string[]; condition?: Json }[] {
  const id = roleId(s, name);
  return Object.values(s.api.findResources('AWS::IAM::Policy'))
    .map((p) => p.Properties as { Roles: Json[]; PolicyDocument: { Statement: Json[] } })
    .filter((p) => p.Roles.some((r) => r.Ref === id))
    .flatMap((p) => p.PolicyDocument.Statement)
    .map((st) => ({
      actions: list(st.Action as string | string[]),
      resources: list(st.Resource).map(render),
      condition: st.Condition as Json | undefined,
    }));
}
const actionsOf = (s: Synthesized, name: string) => statements(s, name).flatMap((st) => st.actions);

describe('mailbox probing in the stack', () => {
  it('gives every function SMTP_PROBE and the HELO / MAIL FROM names of the contexts', () => {
    for (const fn of wiring.functions)
      expect(environment(configured, fn.name)).toMatchObject({
        SMTP_PROBE: 'true',
        SMTP_HELO_NAME: 'probe.mail.acme-mail.io',
        SMTP_MAIL_FROM: 'probe@mail.acme-mail.io',
      });
    for (const fn of wiring.functions) expect(environment(plain, fn.name).SMTP_PROBE).toBeUndefined();
  });

  it('hands the probing functions the secret reference, never the pool itself', () => {
    for (const fn of wiring.functions)
      expect(environment(configured, fn.name).SMTP_SOCKS_PROXY_SECRET).toBe(
        (probingFunctions as readonly string[]).includes(fn.name)
          ? 'secretsmanager:mailvet/socks-pool'
          : undefined,
      );
    const text = JSON.stringify(configured.api.toJSON());
    expect(text).not.toContain('socks5://');
    expect(text).not.toContain('SMTP_SOCKS_PROXY"');
  });

  it('lists exactly the functions whose handler reads a secret setting (secretSettings)', () => {
    const readers = wiring.functions
      .filter((f) => fs.readFileSync(path.join(repoRoot, f.entry), 'utf8').includes('secretSettings()'))
      .map((f) => f.name);
    // the probing functions read the SOCKS pool; the Safety Net's the platforms' client credentials
    const platformReaders = wiring.functions.filter((f) => f.access.platformCredentials).map((f) => f.name);
    expect(readers.sort()).toEqual([...new Set([...probingFunctions, ...platformReaders])].sort());
  });

  it('lets only the probing functions read that one secret', () => {
    // The sealed secrets' key and the platform credentials are granted per declaration (test/cdk/secrets.test.ts).
    const ownedElsewhere = (st: { resources: string[] }) =>
      st.resources.some((r) => /SecretsKeyArn|PlatformCredentialsSecretArn/.test(r));
    for (const fn of wiring.functions) {
      const reads = statements(configured, fn.name).filter(
        (st) =>
          !ownedElsewhere(st) &&
          st.actions.some(
            (a) => a.startsWith('secretsmanager:') || a.startsWith('ssm:') || a.startsWith('kms:'),
          ),
      );
      if (!(probingFunctions as readonly string[]).includes(fn.name)) {
        expect(reads).toEqual([]);
        continue;
      }
      expect(reads).toEqual([
        {
          actions: ['secretsmanager:GetSecretValue'],
          resources: [
            'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:mailvet/socks-pool-??????',
          ],
          condition: undefined,
        },
      ]);
    }
    // without a SOCKS pool, only the platform credentials' readers read Secrets Manager
    for (const fn of wiring.functions)
      expect(actionsOf(plain, fn.name).filter((a) => a.startsWith('secretsmanager:'))).toEqual(
        fn.access.platformCredentials ? ['secretsmanager:GetSecretValue'] : [],
      );
  });

  it('reads an SSM SecureString by name or ARN, a Secrets Manager secret by ARN, and refuses anything else', () => {
    const stack = new Stack();
    const ssm = socksSecretOf('ssm:/mailvet/socks');
    expect(ssm.reference).toBe('ssm:/mailvet/socks');
    expect(ssm.action).toBe('ssm:GetParameter');
    expect(render(stack.resolve(ssm.arn))).toBe(
      'arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter/mailvet/socks',
    );
    const arn = 'arn:aws:ssm:eu-west-1:123456789012:parameter/mailvet/socks';
    expect(socksSecretOf(arn)).toEqual({ reference: `ssm:${arn}`, action: 'ssm:GetParameter', arn });
    const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mailvet/socks-AbC123';
    expect(socksSecretOf(secretArn)).toMatchObject({
      reference: `secretsmanager:${secretArn}`,
      arn: secretArn,
    });
    expect(() => socksSecretOf('socks5://u:p@h:1')).toThrow('smtpSocksSecret');
  });

  it('stops the synth on .local HELO and MAIL FROM names while probing is on, naming both contexts', () => {
    const names = { enabled: true, heloName: 'mailvet.local', mailFrom: 'probe@mailvet.local' };
    expect(() => createMailvet(bareApp(), { probing: names })).toThrow(
      /smtpHeloName "mailvet.local" ends in .local[\s\S]*smtpMailFrom "probe@mailvet.local" ends in .local/,
    );
    expect(() => createMailvet(bareApp(), { probing: { enabled: true } })).toThrow(
      /smtpHeloName is not set[\s\S]*smtpMailFrom is not set/,
    );
    expect(() =>
      createMailvet(bareApp(), { probing: { ...probing, heloName: 'probe', mailFrom: 'probe@example.com' } }),
    ).toThrow(/smtpHeloName "probe" is not a fully qualified host name[\s\S]*ends in .example.com/);
    // Probing off: the names are not used to probe, so nothing is refused.
    expect(() => createMailvet(bareApp(), { probing: { ...names, enabled: false } })).not.toThrow();
  });

  it('warns at synth when probing is on without a SOCKS pool', () => {
    const stacks = createMailvet(bareApp(), { probing: { ...probing, socksSecret: undefined } });
    Annotations.fromStack(stacks.api).hasWarning('*', Match.stringLikeRegexp('without smtpSocksSecret'));
  });

  it('reads smtpProbe as true or false, and stops on anything else', () => {
    expect(contextFlag('smtpProbe', 'true')).toBe(true);
    expect(contextFlag('smtpProbe', false)).toBe(false);
    expect(contextFlag('smtpProbe', undefined)).toBe(false);
    expect(() => contextFlag('smtpProbe', 'yes')).toThrow('smtpProbe must be true or false, not yes');
  });
});

describe('invite emails through SES', () => {
  it('gives sendInvite INVITE_FROM and ses:SendEmail on that identity, from that address only', () => {
    expect(environment(configured, 'sendInvite').INVITE_FROM).toBe('invites@acme-mail.io');
    expect(
      statements(configured, 'sendInvite').filter((st) => st.actions.some((a) => a.startsWith('ses:'))),
    ).toEqual([
      {
        actions: ['ses:SendEmail'],
        resources: ['arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/acme-mail.io'],
        condition: { StringEquals: { 'ses:FromAddress': 'invites@acme-mail.io' } },
      },
    ]);
    for (const fn of wiring.functions.filter((f) => f.name !== 'sendInvite')) {
      expect(actionsOf(configured, fn.name).filter((a) => a.startsWith('ses:'))).toEqual([]);
      expect(environment(configured, fn.name).INVITE_FROM).toBeUndefined();
    }
  });

  it('without inviteFrom sends nothing and says at synth that invites stay pending', () => {
    expect(environment(plain, 'sendInvite').INVITE_FROM).toBeUndefined();
    expect(actionsOf(plain, 'sendInvite').filter((a) => a.startsWith('ses:'))).toEqual([]);
    Annotations.fromStack(plain.stacks.api).hasWarning('*', Match.stringLikeRegexp('invites stay pending'));
    expect(
      Annotations.fromStack(configured.stacks.api).findWarning('*', Match.stringLikeRegexp('inviteFrom')),
    ).toEqual([]);
  });

  it('sends under the address itself or one of its domains, and refuses anything else', () => {
    expect(inviteIdentityOf({ from: 'invites@mail.acme.io' })).toEqual({
      from: 'invites@mail.acme.io',
      identity: 'mail.acme.io',
    });
    expect(inviteIdentityOf({ from: 'invites@mail.acme.io', identity: 'acme.io' }).identity).toBe('acme.io');
    expect(inviteIdentityOf({ from: 'invites@acme.io', identity: 'invites@acme.io' }).identity).toBe(
      'invites@acme.io',
    );
    expect(() => inviteIdentityOf({ from: 'invites' })).toThrow(
      'inviteFrom "invites" is not an email address',
    );
    expect(() => inviteIdentityOf({ from: 'invites@acme.io', identity: 'other.io' })).toThrow(
      'inviteIdentity',
    );
  });
});

describe('alarms that fire', () => {
  const topic = { 'Fn::ImportValue': 'mailvet-data-AlarmTopicArn' };

  it('alarm on the first message a dead-letter queue receives, for every queue', () => {
    const received = plain.data.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'NumberOfMessagesReceived', Namespace: 'AWS/SQS' },
    });
    expect(Object.keys(received)).toHaveLength(wiring.queues.length);
    for (const spec of wiring.queues)
      plain.data.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'NumberOfMessagesReceived',
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: {
              'Fn::GetAtt': [
                Match.stringLikeRegexp(
                  `^${spec.name.charAt(0).toUpperCase()}${spec.name.slice(1)}DeadLetterQueue`,
                ),
                'QueueName',
              ],
            },
          },
        ],
        AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmTopic') }],
      });
  });

  it('alarm on a failed bulk job (JobsFailed)', () => {
    plain.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'mailvet',
      MetricName: 'JobsFailed',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic],
    });
  });

  // Grouped, ten functions an alarm (lib/function-alarm-groups.ts): every function once, in one alarm each.
  const groupedFunctions = (metricName: string) =>
    Object.values(plain.api.findResources('AWS::CloudWatch::Alarm'))
      .map((a) => (a.Properties as { Metrics?: Json[] }).Metrics ?? [])
      .flatMap((metrics) =>
        metrics
          .map(
            (m) =>
              (m.MetricStat as { Metric: { MetricName: string; Dimensions: { Value: { Ref: string } }[] } })
                ?.Metric,
          )
          .filter((m) => m?.MetricName === metricName)
          .map((m) => m.Dimensions[0]!.Value.Ref),
      );

  it('alarm on throttles and on errors of every function, ten functions an alarm', () => {
    const every = wiring.functions.map((f) => logicalId(plain, f.name)).sort();
    expect(groupedFunctions('Throttles').sort()).toEqual(every);
    expect(groupedFunctions('Errors').sort()).toEqual(every);
  });

  it("keeps the API stack within CloudFormation's 500 resources", () => {
    expect(Object.keys(plain.api.toJSON().Resources).length).toBeLessThanOrEqual(500);
  });

  it('alarm on DynamoDB throttled requests of every operation the table serves', () => {
    const alarms = Object.values(plain.api.findResources('AWS::CloudWatch::Alarm')).filter((a) =>
      JSON.stringify(a).includes('ThrottledRequests'),
    );
    expect(alarms).toHaveLength(1);
    const metrics = (alarms[0]!.Properties as { Metrics: Json[] }).Metrics;
    const operations = metrics
      .map(
        (m) =>
          (m.MetricStat as { Metric: { Dimensions: { Name: string; Value: unknown }[] } } | undefined)
            ?.Metric,
      )
      .filter((m) => m !== undefined)
      .map((m) => m.Dimensions.find((d) => d.Name === 'Operation')!.Value);
    expect(operations).toEqual(
      expect.arrayContaining(['GetItem', 'PutItem', 'UpdateItem', 'Query', 'TransactWriteItems']),
    );
    expect(operations).toHaveLength(10);
    expect(JSON.stringify(metrics)).toContain('mailvet-data-TableName');
    expect((alarms[0]!.Properties as Json).AlarmActions).toEqual([topic]);
  });

  it('alarm on the API p99 latency: 10 s by default, the context otherwise', () => {
    const latency = { MetricName: 'Latency', Namespace: 'AWS/ApiGateway', ExtendedStatistic: 'p99' };
    plain.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...latency,
      Threshold: 10000,
      AlarmActions: [topic],
    });
    configured.api.hasResourceProperties('AWS::CloudWatch::Alarm', { ...latency, Threshold: 4000 });
    plain.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5xx',
      Namespace: 'AWS/ApiGateway',
    });
  });

  it('alarmOnCount adds an alarm on a custom mailvet metric that notifies the topic', () => {
    configured.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'mailvet',
      MetricName: 'ProbeEgressUnhealthy',
      Threshold: 3,
      AlarmDescription: 'test: a custom count',
      AlarmActions: [topic],
    });
  });

  it('warn at synth when nobody is subscribed to the alarms, and not when alarmEmail is set', () => {
    Annotations.fromStack(plain.stacks.stateful).hasWarning(
      '*',
      Match.stringLikeRegexp('No alarm subscriber'),
    );
    expect(
      Annotations.fromStack(configured.stacks.stateful).findWarning(
        '*',
        Match.stringLikeRegexp('alarm subscriber'),
      ),
    ).toEqual([]);
    configured.data.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@acme-mail.io',
    });
  });
});

describe('reserved concurrency of the API', () => {
  const reserved = (s: Synthesized, name: string) =>
    (s.api.toJSON().Resources[logicalId(s, name)] as { Properties: Json }).Properties
      .ReservedConcurrentExecutions;

  it('reserves the default for every API function (six times it for the sync route), none for consumers', () => {
    const api = apiFunctionNames();
    expect(api).toContain('notFound');
    for (const fn of wiring.functions) {
      const expected = !api.includes(fn.name)
        ? undefined
        : fn.name === 'validateEmail'
          ? 6 * defaultApiReservedConcurrency
          : defaultApiReservedConcurrency;
      expect([fn.name, reserved(plain, fn.name)]).toEqual([fn.name, expected]);
    }
    // Small enough for a young account: Lambda keeps 100 executions unreserved.
    const total = api.reduce((sum, name) => sum + Number(reserved(plain, name)), 0);
    expect(total + 100).toBeLessThanOrEqual(200);
    Annotations.fromStack(plain.stacks.api).hasInfo(
      '*',
      Match.stringLikeRegexp(`reserve ${total} concurrent executions`),
    );
  });

  it('takes the per-function number from apiReservedConcurrency; 0 reserves none', () => {
    expect(reserved(configured, 'getJob')).toBe(7);
    expect(reserved(configured, 'validateEmail')).toBe(42);
    const none = synth({ apiReservedConcurrency: 0 });
    for (const fn of wiring.functions) expect(reserved(none, fn.name)).toBeUndefined();
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing in the fully configured stacks (probing secret, SES, alarms)', () => {
    expect(configured.nagErrors).toEqual([]);
    expect(plain.nagErrors).toEqual([]);
  });
});
