// Synthesizes both stacks once, with bundling skipped and cdk-nag's AwsSolutions pack registered, and
// checks the templates against functions/wiring.ts: routes, grants, queues, triggers, storage, nag.
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { globalIndexes, tableKeys, ttlAttribute } from '../../functions/store/table';
import * as wiring from '../../functions/wiring';
import { tableActions } from '../../lib/api-stack';
import { createMailvet, type MailvetStacks } from '../../lib/mailvet';
import { repoRoot } from '../../lib/mailvet-function';
import { checkWiring, type Wiring } from '../../lib/wiring-checks';
import { privateBucketProperties, synthWithNag, type NagReport } from './synth';

type Json = Record<string, unknown>;
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}
let stacks: MailvetStacks;
let report: NagReport;
let app: App;
let api: Template;
let data: Template;

beforeAll(() => {
  ({ app, report } = synthWithNag((a) => {
    stacks = createMailvet(a);
  }));
  api = Template.fromStack(stacks.api);
  data = Template.fromStack(stacks.stateful);
});

const logicalId = (construct: IConstruct): string =>
  Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
const fnId = (name: string): string => {
  const fn = stacks.api.functions.get(name);
  if (!fn) throw new Error(`no function ${name}`);
  return logicalId(fn);
};
const exportOf = (what: string): string => `${stacks.stateful.stackName}-${what}`;
const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** Intrinsics as readable strings: `import:<export>`, `ref:<id>`, `<id>.<attr>`, joins concatenated. */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if ('Fn::ImportValue' in v) return `import:${String(v['Fn::ImportValue'])}`;
  if ('Ref' in v) return `ref:${String(v.Ref)}`;
  if ('Fn::GetAtt' in v) return (v['Fn::GetAtt'] as string[]).join('.');
  if ('Fn::Join' in v) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(sep);
  }
  return JSON.stringify(value);
}
const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

/** Every Allow statement of the policies attached to a function's role, as action -> rendered resources. */
function permissions(name: string): Map<string, string[]> {
  const fn = stacks.api.functions.get(name);
  const roleId = logicalId(fn!.role!);
  const result = new Map<string, string[]>();
  for (const policy of Object.values(api.findResources('AWS::IAM::Policy'))) {
    const props = policy.Properties as { Roles: Json[]; PolicyDocument: { Statement: Statement[] } };
    if (!props.Roles.some((r) => r.Ref === roleId)) continue;
    for (const s of props.PolicyDocument.Statement) {
      expect(s.Effect).toBe('Allow');
      for (const action of list(s.Action))
        result.set(action, [...(result.get(action) ?? []), ...list(s.Resource).map(render)]);
    }
  }
  return result;
}
const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();
const onFailure = (name: string): boolean => wiring.bucketTriggers.some((t) => t.onFailure === name);

describe('HTTP API', () => {
  // The widget's API (test/cdk/console-site.test.ts) routes POST /v1/email/validate too.
  const mainApi = () => ({
    Ref: Stack.of(stacks.api).getLogicalId(stacks.api.api.node.defaultChild as CfnElement),
  });

  function integrationTarget(routeKey: string): Json {
    const found = Object.values(
      api.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey, ApiId: mainApi() } }),
    );
    expect(found).toHaveLength(1);
    const target = (found[0]!.Properties as { Target: Json }).Target;
    const integrationId = render(target).replace('integrations/ref:', '');
    const integration = api.toJSON().Resources[integrationId] as { Properties: Json };
    return integration.Properties;
  }

  test.each(wiring.routes.map((r) => [`${r.method} ${r.path}`, r.function]))(
    'routes %s to %s with payload 2.0',
    (routeKey, fn) => {
      expect(integrationTarget(routeKey)).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [fnId(fn), 'Arn'] },
      });
    },
  );

  test('sends every undefined route to the default function ($default)', () => {
    expect(integrationTarget('$default')).toMatchObject({
      IntegrationUri: { 'Fn::GetAtt': [fnId(wiring.defaultRouteFunction), 'Arn'] },
    });
    expect(wiring.defaultRouteFunction).toBe('notFound');
    const routes = api.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: mainApi() } });
    expect(Object.keys(routes)).toHaveLength(wiring.routes.length + 1);
  });

  test('lets API Gateway invoke each routed function', () => {
    for (const name of new Set([...wiring.routes.map((r) => r.function), wiring.defaultRouteFunction]))
      api.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [fnId(name), 'Arn'] },
      });
  });

  test('logs access to a log group without headers and throttles the stage', () => {
    api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiAccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
    const stage = Object.values(api.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(JSON.stringify(stage)).not.toMatch(/header/i);
  });

  test('outputs the API URL, table and bucket', () => {
    api.hasOutput('ApiUrl', {});
    api.hasOutput('TableName', { Value: { 'Fn::ImportValue': exportOf('TableName') } });
    api.hasOutput('BucketName', { Value: { 'Fn::ImportValue': exportOf('BucketName') } });
  });
});

describe('functions', () => {
  test("there is one Lambda per wiring entry, plus CDK's bucket-notification and bucket-deployment handlers", () => {
    api.resourceCountIs('AWS::Lambda::Function', wiring.functions.length + 2);
    api.resourceCountIs('Custom::CDKBucketDeployment', 1);
  });

  test.each(wiring.functions.map((f) => [f.name, f]))(
    '%s gets the shared defaults and its sizes',
    (name, spec) => {
      const env = Object.fromEntries([
        ['TABLE_NAME', { 'Fn::ImportValue': exportOf('TableName') }],
        ['BUCKET_NAME', { 'Fn::ImportValue': exportOf('BucketName') }],
        ...wiring.queues.map((q) => [
          wiring.queueUrlEnvName(q.name),
          { 'Fn::ImportValue': exportOf(`${pascal(q.name)}QueueUrl`) },
        ]),
        ['NODE_OPTIONS', '--enable-source-maps'],
      ]);
      const fn = api.toJSON().Resources[fnId(name)] as { Properties: Json };
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        Timeout: spec.timeoutSeconds,
        MemorySize: spec.memoryMb,
        Description: spec.description,
        Environment: { Variables: env },
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(`^${name}Logs`) } },
      });
      // Its own log group with a retention (not the deprecated logRetention custom resource).
      const logGroupId = render((fn.Properties.LoggingConfig as Json).LogGroup).replace('ref:', '');
      expect(
        (api.toJSON().Resources[logGroupId] as { Properties: Json }).Properties.RetentionInDays,
      ).toBeGreaterThan(0);
    },
  );

  test('no role carries a managed policy (no account-wide log access)', () => {
    for (const name of wiring.functions.map((f) => f.name)) {
      const role = api.toJSON().Resources[logicalId(stacks.api.functions.get(name)!.role!)] as {
        Properties: Json;
      };
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe("least privilege, from each function's access in wiring.ts", () => {
  const tableArn = () => `import:${exportOf('TableArn')}`;
  const bucketObjects = (prefixes: string[] = []) =>
    prefixes.map((p) => `import:${exportOf('BucketArn')}/${p}*`);
  const queueArn = (q: string, dlq = false) =>
    `import:${exportOf(`${pascal(q)}${dlq ? 'DeadLetter' : ''}QueueArn`)}`;

  test.each(wiring.functions.map((f) => [f.name, f]))(
    '%s is allowed exactly what its access says',
    (name, spec) => {
      const perms = permissions(name);
      const { access } = spec;
      for (const [action, resources] of perms) {
        expect(action).not.toContain('*');
        const [service] = action.split(':');
        switch (service) {
          case 'logs':
            expect(resources).toEqual([`${logicalId(stacks.api.functions.get(name)!.logGroup)}.Arn`]);
            break;
          case 'xray':
            expect(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']).toContain(action);
            break;
          case 'dynamodb':
            expect(access.table.flatMap((a) => tableActions[a])).toContain(action);
            // Only a query may use an index.
            expect(sorted(resources)).toEqual(
              sorted(action === 'dynamodb:Query' ? [tableArn(), `${tableArn()}/index/*`] : [tableArn()]),
            );
            break;
          case 's3':
            if (['s3:GetObject', 's3:GetObjectVersion'].includes(action))
              expect(sorted(resources)).toEqual(sorted(bucketObjects(access.bucketRead)));
            else if (
              ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'].includes(action)
            )
              expect(sorted(resources)).toEqual(sorted(bucketObjects(access.bucketWrite)));
            else if (action === 's3:DeleteObject')
              expect(sorted(resources)).toEqual(sorted(bucketObjects(access.bucketDelete)));
            else if (action === 's3:ListBucket')
              expect(resources).toEqual([`import:${exportOf('BucketArn')}`]);
            else throw new Error(`${name} has unexpected ${action}`);
            break;
          case 'sqs': {
            const consumed = wiring.queueConsumers
              .filter((c) => c.function === name)
              .map((c) => queueArn(c.queue, c.deadLetters));
            const sendsTo = (access.sendsTo ?? []).map((q) => queueArn(q));
            if (action === 'sqs:SendMessage') {
              // An S3 trigger's on-failure function may also send to its own dead-letter queue (Lambda's
              // asynchronous invocation does, with the function's role).
              const own = resources.filter((r) => r.startsWith(`${pascal(name)}DeadLetterQueue`));
              expect(own).toHaveLength(onFailure(name) ? 1 : 0);
              expect(sorted(resources.filter((r) => !own.includes(r)))).toEqual(sorted(sendsTo));
            } else if (
              ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'].includes(action)
            )
              expect(sorted(resources)).toEqual(sorted(consumed));
            else expect(sorted(consumed.concat(sendsTo))).toEqual(expect.arrayContaining(resources));
            break;
          }
          case 'lambda': {
            // Only an S3 trigger's on-failure destination: startProcessing invokes failStartProcessing.
            const trigger = wiring.bucketTriggers.find((t) => t.function === name);
            expect(action).toBe('lambda:InvokeFunction');
            expect(trigger).toBeDefined();
            expect(JSON.stringify(resources)).toContain(fnId(trigger!.onFailure));
            break;
          }
          case 'secretsmanager':
            // Only the platform credentials' secret, and only for a function that declares it.
            expect(action).toBe('secretsmanager:GetSecretValue');
            expect(access.platformCredentials).toBe(true);
            expect(resources).toEqual([`import:${exportOf('PlatformCredentialsSecretArn')}`]);
            break;
          case 'kms':
            // Only the sealed-secrets key, and only the actions access.secrets declares.
            expect(access.secrets?.map((a) => `kms:${a === 'encrypt' ? 'Encrypt' : 'Decrypt'}`)).toContain(
              action,
            );
            expect(resources).toEqual([`import:${exportOf('SecretsKeyArn')}`]);
            break;
          default:
            throw new Error(`${name} has unexpected ${action}`);
        }
      }
      // Exactly the actions of the access kinds the wiring names: no Scan, no DescribeTable, nothing more.
      expect(sorted([...perms.keys()].filter((a) => a.startsWith('dynamodb:')))).toEqual(
        sorted(access.table.flatMap((a) => tableActions[a])),
      );
      expect(perms.has('s3:GetObject')).toBe(Boolean(access.bucketRead?.length));
      expect(perms.has('s3:PutObject')).toBe(Boolean(access.bucketWrite?.length));
      expect(perms.has('s3:ListBucket')).toBe(
        Boolean(access.bucketList?.length || access.bucketDelete?.length),
      );
      expect(perms.has('sqs:SendMessage')).toBe(Boolean(access.sendsTo?.length) || onFailure(name));
      expect(perms.has('sqs:ReceiveMessage')).toBe(wiring.queueConsumers.some((c) => c.function === name));
    },
  );

  test('no function may Scan the table, only those that delete may DeleteItem or BatchWriteItem, senders only send', () => {
    for (const { name, access } of wiring.functions) {
      const perms = permissions(name);
      expect(perms.has('dynamodb:Scan')).toBe(false);
      expect(perms.has('dynamodb:DeleteItem')).toBe(access.table.includes('delete'));
      expect(perms.has('dynamodb:BatchWriteItem')).toBe(access.table.includes('batchWrite'));
      // A function that only sends may only send: no GetQueueUrl or GetQueueAttributes.
      if (!wiring.queueConsumers.some((c) => c.function === name))
        expect([...perms.keys()].filter((a) => a.startsWith('sqs:') && a !== 'sqs:SendMessage')).toEqual([]);
    }
    // The job's own reads keep to reading and the rate counter.
    expect(sorted([...permissions('getJob').keys()].filter((a) => a.startsWith('dynamodb:')))).not.toContain(
      'dynamodb:Query',
    );
    api.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: logicalId(stacks.api.functions.get('sendInvite')!.role!) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Resource: { 'Fn::ImportValue': exportOf('TableArn') },
          },
        ]),
      },
    });
  });

  test('getJob touches no S3 object and sends no message', () => {
    const actions = [...permissions('getJob').keys()];
    expect(actions.filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(actions).not.toContain('sqs:SendMessage');
  });

  test('createJob can PutObject only under uploads/ and read nothing from S3', () => {
    const perms = permissions('createJob');
    expect(perms.get('s3:PutObject')).toEqual([`import:${exportOf('BucketArn')}/uploads/*`]);
    expect(perms.has('s3:GetObject')).toBe(false);
  });

  // Without it S3 answers a missing key's HEAD with 403, and the first filtered download answered 500.
  test('downloadJob may list keys under results/ only, to learn whether a filtered copy exists', () => {
    const roleId = logicalId(stacks.api.functions.get('downloadJob')!.role!);
    api.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: 's3:ListBucket',
            Resource: { 'Fn::ImportValue': exportOf('BucketArn') },
            Condition: { StringLike: { 's3:prefix': ['results/*'] } },
          },
        ]),
      },
    });
  });

  test('no role may list the bucket without a prefix condition', () => {
    for (const policy of Object.values(api.findResources('AWS::IAM::Policy')))
      for (const s of (policy.Properties as { PolicyDocument: { Statement: (Statement & Json)[] } })
        .PolicyDocument.Statement)
        if (list(s.Action).includes('s3:ListBucket'))
          expect(s.Condition).toEqual({ StringLike: { 's3:prefix': expect.anything() } });
  });

  test('validateChunk can send only to the webhooks and probes queues', () => {
    expect(permissions('validateChunk').get('sqs:SendMessage')).toEqual([
      queueArn('webhooks'),
      queueArn('probes'),
    ]);
  });

  test('probeMailboxes can send only to the probes and chunks queues, and reads no bucket', () => {
    expect(permissions('probeMailboxes').get('sqs:SendMessage')).toEqual([
      queueArn('probes'),
      queueArn('chunks'),
    ]);
    expect(permissions('probeMailboxes').has('s3:GetObject')).toBe(false);
    expect(permissions('probeMailboxes').has('s3:PutObject')).toBe(false);
  });

  test('notFound has no table, bucket or queue access at all', () => {
    expect(sorted([...permissions('notFound').keys()].map((a) => a.split(':')[0]!))).toEqual([
      'logs',
      'xray',
    ]);
  });
});

describe('queues', () => {
  test.each(wiring.queues.map((q) => [q.name, q]))(
    '%s has an encrypted, SSL-only DLQ and alarms',
    (name, spec) => {
      const queue = logicalId(stacks.stateful.queues[name].queue);
      const dlq = logicalId(stacks.stateful.queues[name].deadLetterQueue);
      data.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `${stacks.stateful.stackName}-${name}`,
        VisibilityTimeout: spec.visibilityTimeoutSeconds,
        MessageRetentionPeriod: spec.retentionSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] },
          maxReceiveCount: spec.maxReceiveCount,
        },
      });
      data.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `${stacks.stateful.stackName}-${name}-dlq`,
        MessageRetentionPeriod: wiring.deadLetterRetentionSeconds,
        SqsManagedSseEnabled: true,
      });
      for (const id of [queue, dlq])
        data.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      data.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      data.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
      });
    },
  );

  test('every queue in the template is a wiring queue or its DLQ', () => {
    data.resourceCountIs('AWS::SQS::Queue', 2 * wiring.queues.length);
  });

  /** Export name -> the data stack's queue resource, read from the data stack's Outputs. */
  function queueBehindExport(exportName: string): Json {
    const outputs = data.toJSON().Outputs as Record<string, { Value: Json; Export: { Name: string } }>;
    const output = Object.values(outputs).find((o) => o.Export.Name === exportName);
    const id = (output!.Value['Fn::GetAtt'] as string[])[0]!;
    return (data.toJSON().Resources[id] as { Properties: Json }).Properties;
  }

  test('every consumer reads its queue in partial batches, with a visibility timeout >= 6x its timeout', () => {
    const mappings = Object.values(api.findResources('AWS::Lambda::EventSourceMapping')).map(
      (m) => m.Properties as Json,
    );
    expect(mappings).toHaveLength(wiring.queueConsumers.length);
    for (const c of wiring.queueConsumers) {
      const exportName = exportOf(`${pascal(c.queue)}${c.deadLetters ? 'DeadLetter' : ''}QueueArn`);
      const mapping = mappings.find((m) => render(m.FunctionName) === `ref:${fnId(c.function)}`);
      expect(mapping).toMatchObject({
        EventSourceArn: { 'Fn::ImportValue': exportName },
        BatchSize: c.batchSize,
        ScalingConfig: { MaximumConcurrency: Math.max(2, c.maxConcurrency) },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      const timeout = (api.toJSON().Resources[fnId(c.function)] as { Properties: { Timeout: number } })
        .Properties.Timeout;
      const visibility = (queueBehindExport(exportName).VisibilityTimeout as number | undefined) ?? 30;
      expect(visibility).toBeGreaterThanOrEqual(6 * timeout);
    }
  });
});

describe('storage', () => {
  test('the table has the keys, indexes, TTL, PITR, on-demand billing and encryption of table.ts', () => {
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableKeys.partition, KeyType: 'HASH' },
        { AttributeName: tableKeys.sort, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      SSESpecification: { SSEEnabled: true },
      GlobalSecondaryIndexes: globalIndexes.map((i) =>
        Match.objectLike({
          IndexName: i.name,
          KeySchema: [
            { AttributeName: i.partition, KeyType: 'HASH' },
            { AttributeName: i.sort, KeyType: 'RANGE' },
          ],
        }),
      ),
    });
    data.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  const bucketId = () => logicalId(stacks.stateful.bucket);
  const bucket = () => (data.toJSON().Resources[bucketId()] as { Properties: Json }).Properties;

  test('the bucket blocks public access, is encrypted, versioned and logs access elsewhere', () => {
    expect(bucket()).toMatchObject({
      ...privateBucketProperties,
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: { DestinationBucketName: { Ref: expect.stringMatching(/^AccessLogsBucket/) } },
    });
  });

  test('the bucket refuses plain HTTP', () => {
    data.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  test('the bucket expires uploads, parts, results, noncurrent versions and stale multipart uploads', () => {
    const rules = (bucket().LifecycleConfiguration as { Rules: Json[] }).Rules;
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: wiring.uploadsPrefix, ExpirationInDays: 2, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: wiring.partsPrefix, ExpirationInDays: 2 }),
        // Results are handed out 30 days after completion and deleted a day later.
        expect.objectContaining({ Prefix: wiring.resultsPrefix, ExpirationInDays: 31 }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
      ]),
    );
  });

  test('browsers may PUT and GET with a content-type header', () => {
    expect(bucket().CorsConfiguration).toEqual({
      CorsRules: [
        expect.objectContaining({ AllowedMethods: ['PUT', 'GET'], AllowedHeaders: ['content-type'] }),
      ],
    });
  });

  test('an object created under uploads/ invokes startProcessing, and only that', () => {
    const [trigger] = wiring.bucketTriggers;
    expect(trigger).toMatchObject({ function: 'startProcessing', prefix: 'uploads/' });
    api.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { 'Fn::ImportValue': exportOf('BucketName') },
      Managed: false,
      NotificationConfiguration: {
        LambdaFunctionConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'uploads/' }] } },
            LambdaFunctionArn: { 'Fn::GetAtt': [fnId('startProcessing'), 'Arn'] },
          },
        ],
      },
    });
    api.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 's3.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId('startProcessing'), 'Arn'] },
      SourceArn: { 'Fn::ImportValue': exportOf('BucketArn') },
    });
  });
});

describe('cdk-nag AwsSolutions', () => {
  test('reports no finding left without an acknowledgment', () => {
    const errors = report.pluginReports.flatMap((r) =>
      r.violations
        .filter((v) => v.severity === 'error' || v.severity === 'fatal')
        .map((v) => `${r.pluginName} ${v.ruleName}`),
    );
    expect(errors).toEqual([]);
    for (const stack of [stacks.api, stacks.stateful])
      expect(Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual(
        [],
      );
  });

  test('would report a finding here, so the empty report above is not vacuous', () => {
    const { report: probe } = synthWithNag((a) => new s3.Bucket(new Stack(a, 'Probe'), 'Unlogged'));
    expect(probe.pluginReports.flatMap((r) => r.violations.map((v) => v.ruleName))).toContain(
      'AwsSolutions-S1',
    );
  });

  test('every acknowledgment carries a written reason', () => {
    // Validations.acknowledge() records each as `{ [ruleId]: reason }` metadata on its construct.
    const acknowledgments = app.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((m) => Object.entries(m.data as Record<string, string>));
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledgments) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length).toBeGreaterThanOrEqual(40);
    }
    expect(
      sorted(acknowledgments.map(([id]) => id.replace(/^Annotation::/, '').replace(/\[.*\]$/, ''))),
    ).toEqual(
      sorted([
        'AwsSolutions-APIG4',
        'AwsSolutions-IAM4',
        'AwsSolutions-IAM5',
        'AwsSolutions-S1',
        // The web console's distribution and CDK's bucket-deployment function (lib/console-site.ts).
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
        'AwsSolutions-L1',
        'AwsSolutions-SNS2',
        // The platform credentials' secret: OAuth client secrets are rotated at the platforms (lib/platform-credentials.ts).
        'AwsSolutions-SMG4',
        // The dead-letter queue of startProcessing's on-failure function is itself the last stop.
        'AwsSolutions-SQS3',
      ]),
    );
  });
});

describe('wiring checks', () => {
  const base: Wiring = wiring;
  const copy = (change: Partial<Wiring>): Wiring => ({ ...base, ...change });

  test('accept the real wiring', () => {
    expect(() => checkWiring(base, repoRoot)).not.toThrow();
  });

  test('reject a route to a function that does not exist', () => {
    const routes = [...base.routes, { method: 'GET' as const, path: '/v1/nope', function: 'nope' }];
    expect(() => checkWiring(copy({ routes }), repoRoot)).toThrow(
      /route GET \/v1\/nope names unknown function nope/,
    );
  });

  test('reject a function whose handler file is missing', () => {
    const functions = [
      ...base.functions,
      { ...base.functions[0]!, name: 'ghost', entry: 'functions/handlers/ghost.ts' },
    ];
    expect(() => checkWiring(copy({ functions }), repoRoot)).toThrow(/ghost\.ts does not exist/);
  });

  test('reject a consumer of an unknown function', () => {
    const queueConsumers = [
      ...base.queueConsumers,
      { function: 'ghost', queue: 'chunks' as const, batchSize: 1, maxConcurrency: 2 },
    ];
    expect(() => checkWiring(copy({ queueConsumers }), repoRoot)).toThrow(/unknown function ghost/);
  });

  test('reject a queue whose visibility timeout is under 6x its consumer timeout', () => {
    const queues = base.queues.map((q) =>
      q.name === 'chunks' ? { ...q, visibilityTimeoutSeconds: 719 } : q,
    );
    expect(() => checkWiring(copy({ queues }), repoRoot)).toThrow(
      /chunks: visibility timeout 719s is below 6x/,
    );
  });
});
