// Least privilege and hygiene beyond the grants: the data bucket's CORS admits the console's origin (not
// any), queues are kept with a retained stack, startProcessing's on-failure function has a dead-letter
// queue, and every function of the API stack, CDK's deploy-time ones included, logs to a group that
// expires.
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { RemovalPolicy } from 'aws-cdk-lib';
import * as wiring from '../../functions/wiring';
import { anyCloudFrontOrigin, contextOrigin } from '../../lib/mailvet';
import { synthMailvet, type MailvetTemplates } from './synth';

type Json = Record<string, unknown>;

let plain: MailvetTemplates;
let configured: MailvetTemplates;

beforeAll(() => {
  plain = synthMailvet();
  configured = synthMailvet({
    prefix: 'hard',
    consoleOrigin: contextOrigin('consoleOrigin', 'https://d111111abcdef8.cloudfront.net'),
    apiCorsOrigins: ['https://app.example.com'],
    removalPolicy: RemovalPolicy.DESTROY,
  });
});

describe("the data bucket's CORS rule", () => {
  it('admits the console origin and the API browser origins only', () => {
    configured.data.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          Match.objectLike({
            AllowedOrigins: ['https://d111111abcdef8.cloudfront.net', 'https://app.example.com'],
          }),
        ],
      },
    });
  });

  it('without consoleOrigin admits CloudFront origins, never *, and warns at synth', () => {
    plain.data.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: { CorsRules: [Match.objectLike({ AllowedOrigins: [anyCloudFrontOrigin] })] },
    });
    expect(JSON.stringify(plain.data.toJSON())).not.toContain('"AllowedOrigins":["*"]');
    Annotations.fromStack(plain.stacks.stateful).hasWarning('*', Match.stringLikeRegexp('consoleOrigin'));
    expect(
      Annotations.fromStack(configured.stacks.stateful).findWarning(
        '*',
        Match.stringLikeRegexp('consoleOrigin'),
      ),
    ).toEqual([]);
  });

  it('takes consoleOrigin only as an https origin', () => {
    expect(contextOrigin('consoleOrigin', undefined)).toBeUndefined();
    expect(contextOrigin('consoleOrigin', ' https://D1.cloudfront.net ')).toBe('https://d1.cloudfront.net');
    for (const bad of ['*', 'http://d1.cloudfront.net', 'https://d1.cloudfront.net/', 'd1.cloudfront.net'])
      expect(() => contextOrigin('consoleOrigin', bad)).toThrow(/consoleOrigin must be an origin/);
  });
});

describe('queues', () => {
  it('are retained with a retained stack, like the table and the bucket', () => {
    const queues = Object.values(plain.data.findResources('AWS::SQS::Queue')) as Json[];
    expect(queues).toHaveLength(wiring.queues.length * 2);
    for (const queue of queues)
      expect(queue).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('go with a stack whose removal policy is destroy', () => {
    for (const queue of Object.values(configured.data.findResources('AWS::SQS::Queue')) as Json[])
      expect(queue).toMatchObject({ DeletionPolicy: 'Delete' });
  });
});

describe("startProcessing's on-failure function", () => {
  it('has a dead-letter queue of its own, encrypted and retained, for events it still fails on', () => {
    const [trigger] = wiring.bucketTriggers;
    const fn = plain.stacks.api.functions.get(trigger!.onFailure)!;
    const fnId = plain.stacks.api.getLogicalId(fn.node.defaultChild as never);
    const props = (plain.api.toJSON().Resources[fnId] as { Properties: Json }).Properties;
    const target = (props.DeadLetterConfig as { TargetArn: { 'Fn::GetAtt': [string, string] } }).TargetArn;
    const queueId = target['Fn::GetAtt'][0];
    expect(plain.api.toJSON().Resources[queueId]).toMatchObject({
      Type: 'AWS::SQS::Queue',
      DeletionPolicy: 'Retain',
      Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: wiring.deadLetterRetentionSeconds },
    });
    // Only that function has one: the others are invoked synchronously or by queues with their own DLQs.
    plain.api.resourcePropertiesCountIs('AWS::Lambda::Function', { DeadLetterConfig: Match.anyValue() }, 1);
  });

  it('pages when an event reaches that dead-letter queue', () => {
    const [trigger] = wiring.bucketTriggers;
    const fn = plain.stacks.api.functions.get(trigger!.onFailure)!;
    const fnId = plain.stacks.api.getLogicalId(fn.node.defaultChild as never);
    const props = (plain.api.toJSON().Resources[fnId] as { Properties: Json }).Properties;
    const queueId = (props.DeadLetterConfig as { TargetArn: { 'Fn::GetAtt': [string, string] } }).TargetArn[
      'Fn::GetAtt'
    ][0];
    plain.api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'NumberOfMessagesReceived',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      AlarmActions: Match.anyValue(),
    });
  });
});

describe('log retention', () => {
  it('every function of the API stack, CDK deploy-time ones included, logs to a group that expires', () => {
    const resources = plain.api.toJSON().Resources as Record<string, { Type: string; Properties: Json }>;
    const functions = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBe(wiring.functions.length + 2);
    for (const [id, fn] of functions) {
      const group = (fn.Properties.LoggingConfig as { LogGroup?: { Ref?: string } } | undefined)?.LogGroup;
      expect({ id, group: group?.Ref }).toEqual({ id, group: expect.any(String) });
      expect(resources[group!.Ref!]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: expect.any(Number) },
      });
    }
  });
});

describe('security headers in the stack', () => {
  it("CloudFront sends the console's origin (the console) with nosniff and a CSP", () => {
    plain.api.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          ContentTypeOptions: { Override: true },
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.stringLikeRegexp("default-src 'self'.*script-src 'self'"),
            Override: true,
          },
        }),
      },
    });
  });
});
