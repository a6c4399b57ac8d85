// The operations items of the stacks: the alarm topic (and its optional email), every alarm notifying
// it, startProcessing's on-failure destination, API CORS from context, the dashboard and the plan
// defaults every function gets.
import { Match, Template } from 'aws-cdk-lib/assertions';
import { contextCount, contextList } from '../../lib/mailvet';
import { synthMailvet, type MailvetTemplates } from './synth';

type Json = Record<string, unknown>;

let plain: MailvetTemplates;
let configured: MailvetTemplates;

beforeAll(() => {
  plain = synthMailvet();
  configured = synthMailvet({
    prefix: 'ops',
    alarmEmail: 'ops@example.com',
    apiCorsOrigins: contextList('https://app.example.com, https://admin.example.com'),
    usageDefaults: { monthlyQuota: contextCount('defaultMonthlyQuota', '5000'), credits: 250 },
  });
});

describe('alarms', () => {
  it('go to one SNS topic; alarmEmail subscribes an address, and nothing is subscribed without it', () => {
    plain.data.resourceCountIs('AWS::SNS::Topic', 1);
    plain.data.resourceCountIs('AWS::SNS::Subscription', 0);
    configured.data.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('every alarm of both stacks notifies the topic', () => {
    const topicRef = Object.keys(plain.data.findResources('AWS::SNS::Topic'))[0]!;
    const dataAlarms = Object.values(plain.data.findResources('AWS::CloudWatch::Alarm')) as Json[];
    expect(dataAlarms.length).toBeGreaterThan(0);
    for (const alarm of dataAlarms)
      expect((alarm.Properties as Json).AlarmActions).toEqual([{ Ref: topicRef }]);
    const apiAlarms = Object.values(plain.api.findResources('AWS::CloudWatch::Alarm')) as Json[];
    expect(apiAlarms.length).toBeGreaterThan(0);
    for (const alarm of apiAlarms)
      expect((alarm.Properties as Json).AlarmActions).toEqual([
        { 'Fn::ImportValue': 'mailvet-data-AlarmTopicArn' },
      ]);
    plain.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5xx',
      Namespace: 'AWS/ApiGateway',
    });
  });
});

describe('validation health alarms', () => {
  it('alarm on a resolver that fails the DNS canaries and on the share of MX hosts refusing the probing IP', () => {
    plain.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'DnsUnavailable',
      Namespace: 'mailvet',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const alarms = Object.values(plain.api.findResources('AWS::CloudWatch::Alarm')) as Json[];
    const share = alarms.find((a) => JSON.stringify(a).includes('RefusingHosts'));
    expect(share).toBeDefined();
    const props = share!.Properties as { Metrics: Json[]; Threshold: number };
    expect(props.Threshold).toBe(0.2);
    const expression = props.Metrics.find((m) => m.Expression !== undefined)!.Expression as string;
    expect(expression).toContain('refusing / probed');
    const metrics = props.Metrics.filter((m) => m.MetricStat !== undefined).map(
      (m) => m.MetricStat as { Metric: { MetricName: string }; Period: number },
    );
    expect(metrics.map((m) => [m.Metric.MetricName, m.Period]).sort()).toEqual([
      ['ProbedHosts', 3600],
      ['RefusingHosts', 3600],
    ]);
  });
});

describe('startProcessing', () => {
  it('has an on-failure destination that fails the job, after one retry', () => {
    const config = plain.api.findResources('AWS::Lambda::EventInvokeConfig');
    const [props] = Object.values(config).map((r) => (r as Json).Properties as Json);
    expect(props).toMatchObject({ MaximumRetryAttempts: 1, MaximumEventAgeInSeconds: 3600 });
    expect((props!.FunctionName as { Ref: string }).Ref).toMatch(/^startProcessing[0-9A-F]{8}$/);
    const destination = (
      props!.DestinationConfig as { OnFailure: { Destination: { 'Fn::GetAtt': string[] } } }
    ).OnFailure.Destination['Fn::GetAtt'];
    expect(destination[0]).toMatch(/^failStartProcessing[0-9A-F]{8}$/);
    expect(destination[1]).toBe('Arn');
  });
});

describe('API CORS', () => {
  it("allows only the web console's own origin by default", () => {
    const api = Object.values(plain.api.findResources('AWS::ApiGatewayV2::Api'))[0] as {
      Properties: { CorsConfiguration: { AllowOrigins: unknown[] } };
    };
    expect(api.Properties.CorsConfiguration.AllowOrigins).toHaveLength(1);
    expect(JSON.stringify(api.Properties.CorsConfiguration.AllowOrigins[0])).toContain('DomainName');
  });

  it('adds the origins of the apiCorsOrigins context, with the headers the API reads', () => {
    configured.api.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: Match.arrayWith(['https://app.example.com', 'https://admin.example.com']),
        AllowHeaders: ['content-type', 'x-api-key', 'idempotency-key', 'authorization'],
        AllowMethods: ['*'],
        ExposeHeaders: ['retry-after'],
      },
    });
  });

  it('keeps the bucket CORS rule for presigned uploads', () => {
    plain.data.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: { CorsRules: [Match.objectLike({ AllowedMethods: ['PUT', 'GET'] })] },
    });
  });
});

describe('dashboard', () => {
  it('graphs job transitions (saying they are not states), rows per minute, probes, webhook outcomes and API 4xx/5xx', () => {
    const dashboards = plain.api.findResources('AWS::CloudWatch::Dashboard');
    expect(Object.keys(dashboards)).toHaveLength(1);
    const body = JSON.stringify(Object.values(dashboards)[0]);
    for (const text of [
      'Bulk job transitions per minute (jobs that entered each state, not jobs in it)',
      'JobsCreated',
      'JobsStarted',
      'JobsCompleted',
      'JobsFailed',
      'RowsValidated',
      'MailboxProbes',
      'WebhookDeliveries',
      'Outcome',
      '4xx',
      '5xx',
    ])
      expect(body).toContain(text);
    expect(body).not.toContain('jobs by state');
  });

  it('the functions write the metrics it graphs (EMF_METRICS set)', () => {
    const functions = Object.values(plain.api.findResources('AWS::Lambda::Function')) as Json[];
    const ours = functions.filter((f) =>
      JSON.stringify((f.Properties as Json).Environment ?? {}).includes('TABLE_NAME'),
    );
    expect(ours.length).toBeGreaterThan(0);
    for (const fn of ours)
      expect(((fn.Properties as Json).Environment as { Variables: Json }).Variables.EMF_METRICS).toBe('true');
  });
});

describe('plan defaults', () => {
  /** The environment of every function of the API stack. */
  const environments = (template: Template) =>
    Object.values(template.findResources('AWS::Lambda::Function'))
      .map((f) => ((f as Json).Properties as Json).Environment as { Variables?: Json } | undefined)
      .filter((env) => env?.Variables?.TABLE_NAME !== undefined)
      .map((env) => env!.Variables!);

  it('every function gets DEFAULT_MONTHLY_QUOTA and DEFAULT_CREDITS: the contexts, else the settings defaults', () => {
    expect(environments(configured.api).length).toBeGreaterThan(10);
    for (const env of environments(configured.api))
      expect(env).toMatchObject({ DEFAULT_MONTHLY_QUOTA: '5000', DEFAULT_CREDITS: '250' });
    for (const env of environments(plain.api))
      expect(env).toMatchObject({ DEFAULT_MONTHLY_QUOTA: '1000', DEFAULT_CREDITS: '0' });
  });

  it('contextCount reads a whole number >= 0 and stops the synth on anything else', () => {
    expect(contextCount('defaultCredits', undefined)).toBeUndefined();
    expect(contextCount('defaultCredits', ' 12 ')).toBe(12);
    expect(contextCount('defaultCredits', 0)).toBe(0);
    expect(() => contextCount('defaultMonthlyQuota', '-1')).toThrow(
      'defaultMonthlyQuota must be a whole number >= 0, not -1',
    );
    expect(() => contextCount('defaultMonthlyQuota', '1.5')).toThrow('defaultMonthlyQuota');
  });
});

describe('contextList', () => {
  it('reads a comma-separated string or an array; unset is empty', () => {
    expect(contextList(undefined)).toEqual([]);
    expect(contextList('')).toEqual([]);
    expect(contextList('https://a.test, https://b.test')).toEqual(['https://a.test', 'https://b.test']);
    expect(contextList(['https://a.test'])).toEqual(['https://a.test']);
  });
});
