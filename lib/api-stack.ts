// The stateless half: one Lambda per wiring entry with exactly the access the wiring gives it, the HTTP
// API routes, the queue consumers and the upload trigger. Redeploying it never touches stored data.
import { Duration, RemovalPolicy, Stack, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambdaDestinations from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { planSettingDefaults } from '../functions/settings';
import { globalIndexes } from '../functions/store/table';
import * as wiring from '../functions/wiring';
import { queueUrlEnvName, type FunctionSpec, type QueueName, type TableAccess } from '../functions/wiring';
import { Alarms, type AlarmOptions } from './alarms';
import { reserveApiConcurrency } from './concurrency';
import { grantInviteSending, type InviteOptions } from './invites';
import { MailvetFunction, repoRoot } from './mailvet-function';
import { ConsoleSite } from './console-site';
import { giveNotificationsHandlerLogs } from './custom-resource-logs';
import { addOutputs } from './outputs';
import { Operations } from './operations';
import { grantSocksSecret, probingEnvironment, type ProbingOptions } from './probing';
import { addValidationHealthAlarms } from './validation-health-alarms';
import { grantSealedSecrets } from './sealed-secrets';
import { grantPlatformCredentials } from './platform-credentials';
import { Schedules } from './schedules';
import type { StatefulRefs } from './stateful-stack';
import { checkWiring } from './wiring-checks';

export interface ApiStackProps extends StackProps {
  /** The stateful resources, as imports of StatefulStack's named exports. */
  refs: StatefulRefs;
  logRetention?: logs.RetentionDays;
  /** Stage-wide throttling, above the per-company limit the functions enforce themselves. */
  throttle?: apigwv2.ThrottleSettings;
  /** Browser origins allowed to call the API (CORS, context `apiCorsOrigins`); none by default. */
  corsOrigins?: string[];
  /** Plan defaults (contexts `defaultMonthlyQuota`, `defaultCredits`); unset: the settings' defaults. */
  usageDefaults?: UsageDefaults;
  /** Mailbox probing (contexts `smtpProbe`, `smtpHeloName`, `smtpMailFrom`, `smtpSocksSecret`). */
  probing?: ProbingOptions;
  /** Invite emails through SES (contexts `inviteFrom`, `inviteIdentity`). */
  invites?: InviteOptions;
  /** Per API function (context `apiReservedConcurrency`); default lib/concurrency.ts's, 0: none. */
  apiReservedConcurrency?: number;
  alarms?: AlarmOptions;
}

export interface UsageDefaults {
  /** DEFAULT_MONTHLY_QUOTA: validations per UTC month of a company without its own quota. */
  monthlyQuota?: number;
  /** DEFAULT_CREDITS: prepaid credits of a company onboarded without `credits`. */
  credits?: number;
}

interface QueueRefs {
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
}

/** The DynamoDB actions of each kind of table access the wiring names (functions/wiring.ts TableAccess). */
export const tableActions: Record<TableAccess, string[]> = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
  query: ['dynamodb:Query'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
  delete: ['dynamodb:DeleteItem'],
  batchWrite: ['dynamodb:BatchWriteItem'],
  transact: ['dynamodb:ConditionCheckItem'],
};

/** Access log lines of both APIs. No headers: the x-api-key must never reach a log. */
const accessLogFormat = apigw.AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The CloudFormation logical id of a function, as cdk-nag names it in findings. */
const logicalIdOf = (fn: MailvetFunction): string =>
  Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);

export class ApiStack extends Stack {
  readonly functions: ReadonlyMap<string, MailvetFunction>;
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  /** The signup-form widget's API: the routes publishable keys call from other sites' pages. */
  readonly widgetApi: apigwv2.HttpApi;
  readonly widgetStage: apigwv2.HttpStage;
  readonly console: ConsoleSite;
  /** alarms.alarmOn(id, metric, options): one more alarm that notifies the alarm topic. */
  readonly alarms: Alarms;
  private readonly table: dynamodb.ITable;
  private readonly bucket: s3.IBucket;
  private readonly queues: Record<QueueName, QueueRefs>;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    checkWiring(wiring, repoRoot);
    const { refs } = props;

    // Imported references: grants on them land on the functions' roles in this stack, and the S3
    // notification below is added from this stack too, so nothing in StatefulStack points back here.
    this.table = dynamodb.Table.fromTableAttributes(this, 'Table', {
      tableArn: refs.tableArn,
      globalIndexes: globalIndexes.map((i) => i.name),
    });
    this.bucket = s3.Bucket.fromBucketAttributes(this, 'Bucket', {
      bucketArn: refs.bucketArn,
      bucketName: refs.bucketName,
    });
    const queues: Partial<Record<QueueName, QueueRefs>> = {};
    for (const spec of wiring.queues) {
      const q = refs.queues[spec.name];
      const name = pascal(spec.name);
      queues[spec.name] = {
        queue: sqs.Queue.fromQueueAttributes(this, `${name}Queue`, {
          queueArn: q.queueArn,
          queueUrl: q.queueUrl,
        }),
        deadLetterQueue: sqs.Queue.fromQueueArn(this, `${name}DeadLetterQueue`, q.deadLetterQueueArn),
      };
    }
    this.queues = queues as Record<QueueName, QueueRefs>;

    const environment: Record<string, string> = {
      TABLE_NAME: refs.tableName,
      BUCKET_NAME: refs.bucketName,
      // Counts for the dashboard, as CloudWatch embedded-metric log lines (functions/metrics.ts).
      EMF_METRICS: 'true',
      // Every function gets the plan defaults, so none computes usage against another quota.
      DEFAULT_MONTHLY_QUOTA: String(
        props.usageDefaults?.monthlyQuota ?? planSettingDefaults.DEFAULT_MONTHLY_QUOTA,
      ),
      DEFAULT_CREDITS: String(props.usageDefaults?.credits ?? planSettingDefaults.DEFAULT_CREDITS),
      // SMTP_PROBE and the HELO / MAIL FROM names (checked here: synth stops on a name servers refuse).
      ...probingEnvironment(props.probing),
    };
    for (const spec of wiring.queues)
      environment[queueUrlEnvName(spec.name)] = refs.queues[spec.name].queueUrl;

    const onFailureDeadLetters = this.onFailureDeadLetterQueues();
    const functions = new Map<string, MailvetFunction>();
    for (const spec of wiring.functions) {
      const fn = new MailvetFunction(this, spec.name, {
        spec,
        environment,
        logRetention: props.logRetention,
        deadLetterQueue: onFailureDeadLetters.get(spec.name),
      });
      this.grantAccess(fn, spec);
      this.acknowledgeWildcards(fn, spec, refs);
      functions.set(spec.name, fn);
    }
    this.functions = functions;
    grantSocksSecret(this, props.probing, functions);
    grantInviteSending(this, props.invites, functions);
    grantSealedSecrets(functions, wiring.functions, refs.secretsKeyArn);
    grantPlatformCredentials(functions, wiring.functions, refs.platformCredentialsSecretArn);
    reserveApiConcurrency(functions, props.apiReservedConcurrency);
    const fn = (name: string): MailvetFunction => {
      const found = functions.get(name);
      if (!found) throw new Error(`No function named ${name} in functions/wiring.ts`);
      return found;
    };

    // Consume rights come with the event source and only with it.
    for (const c of wiring.queueConsumers) {
      const q = this.queues[c.queue];
      fn(c.function).addEventSource(
        new SqsEventSource(c.deadLetters ? q.deadLetterQueue : q.queue, {
          batchSize: c.batchSize,
          maxConcurrency: c.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }

    // Subscribing from StatefulStack would make it reference these functions while this stack
    // references its bucket: a cycle. On an imported bucket CDK adds the notification from this stack
    // with a custom resource that merges into the bucket's configuration instead of owning it.
    for (const t of wiring.bucketTriggers) {
      this.bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new LambdaDestination(fn(t.function)), {
        prefix: t.prefix,
      });
      // S3 invokes asynchronously: after the retries, the on-failure function fails the job at once.
      fn(t.function).configureAsyncInvoke({
        retryAttempts: t.retryAttempts,
        maxEventAge: Duration.hours(1),
        onFailure: new lambdaDestinations.LambdaDestination(fn(t.onFailure), { responseOnly: false }),
      });
      const role = fn(t.function).role;
      if (role)
        Validations.of(role).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(fn(t.onFailure))}.Arn>:*]`,
          reason:
            "CDK's on-failure destination grants invoke on the destination function and its versions " +
            '(`:*`); only that one function.',
        });
    }
    this.acknowledgeNotificationsHandler();
    giveNotificationsHandlerLogs(this, props.logRetention);

    // The web console (lib/console-site.ts) calls the API from its CloudFront origin.
    this.console = new ConsoleSite(this, 'Console');
    this.api = new apigwv2.HttpApi(this, 'HttpApi', {
      apiName: `${this.stackName}`,
      description: 'mailvet email validation API',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: [this.console.origin, ...(props.corsOrigins ?? [])],
        allowMethods: [apigwv2.CorsHttpMethod.ANY],
        allowHeaders: ['content-type', 'x-api-key', 'idempotency-key'],
        exposeHeaders: ['retry-after'],
        maxAge: Duration.hours(1),
      },
      defaultIntegration: new HttpLambdaIntegration('DefaultIntegration', fn(wiring.defaultRouteFunction)),
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Callers authenticate with an x-api-key checked inside every function (hashed key lookup in the ' +
        'table, 401/403 texts from docs/api.md); API Gateway has no authorizer for such company keys.',
    });
    this.stage = this.loggedStage(
      this.api,
      { stage: 'DefaultStage', logs: 'ApiAccessLogs' },
      props.throttle ?? { rateLimit: 200, burstLimit: 400 },
      props,
    );

    const widget = this.createWidgetApi(fn, props);
    this.widgetApi = widget.api;
    this.widgetStage = widget.stage;

    addLambdaRoutes(this.api, wiring.routes, fn, (name) => `${name}Integration`);

    this.console.deploy(this.stage.url);
    new Operations(this, 'Operations', {
      api: this.api,
      functions,
      alarmTopicArn: refs.alarmTopicArn,
    });
    this.alarms = new Alarms(this, 'Alarms', {
      ...props.alarms,
      alarmTopicArn: refs.alarmTopicArn,
      api: this.api,
      functions,
      tableName: refs.tableName,
    });
    // An event the on-failure function itself could not handle holds a job nobody will finish.
    for (const [name, queue] of onFailureDeadLetters)
      this.alarms.alarmOn(
        `${pascal(name)}DeadLetterAlarm`,
        queue.metricNumberOfMessagesReceived({ period: Duration.minutes(1), statistic: 'Sum' }),
        { description: `An event ${name} could not handle reached its dead-letter queue` },
      );
    addValidationHealthAlarms(this.alarms);

    // The wiring's schedules (lib/schedules.ts); each interval or hour is the CDK context of its setting.
    const schedules = new Schedules(this, 'Schedules', {
      schedules: wiring.schedules,
      functionOf: fn,
      lookup: (setting) => this.node.tryGetContext(setting),
    });
    for (const [name, { deadLetterQueue }] of schedules.byName)
      this.alarms.alarmOn(
        `${pascal(name)}ScheduleDeadLetterAlarm`,
        deadLetterQueue.metricNumberOfMessagesReceived({ period: Duration.minutes(5), statistic: 'Sum' }),
        { description: `Scheduler could not deliver a run of schedule ${name}` },
      );

    addOutputs(this, {
      apiUrl: this.stage.url,
      consoleUrl: this.console.origin,
      widgetApiUrl: this.widgetStage.url,
      tableName: refs.tableName,
      bucketName: refs.bucketName,
    });
  }

  /**
   * A dead-letter queue for each bucket trigger's on-failure function: Lambda invokes it asynchronously,
   * and an event it still fails on after Lambda's retries would otherwise be lost with the job in it.
   * Retained like the stateful stack's queues: it holds the only record of that job.
   */
  private onFailureDeadLetterQueues(): Map<string, sqs.Queue> {
    const queues = new Map<string, sqs.Queue>();
    for (const t of wiring.bucketTriggers) {
      const queue = new sqs.Queue(this, `${pascal(t.onFailure)}DeadLetterQueue`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.seconds(wiring.deadLetterRetentionSeconds),
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(queue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: `This is the dead-letter queue of ${t.onFailure}'s asynchronous invocations itself.`,
      });
      queues.set(t.onFailure, queue);
    }
    return queues;
  }

  /**
   * Publishable keys call POST /v1/email/validate from any site a key was made for. The main API's
   * CORS rule cannot list those origins (they are made at run time) and API Gateway replaces a
   * function's CORS headers with its own, so the route has an API without a CORS rule: the function
   * answers the preflight (wiring's preflightRoutes) and adds the headers for the key's origin alone.
   */
  private createWidgetApi(
    fn: (name: string) => MailvetFunction,
    props: ApiStackProps,
  ): { api: apigwv2.HttpApi; stage: apigwv2.HttpStage } {
    const api = new apigwv2.HttpApi(this, 'WidgetApi', {
      apiName: `${this.stackName}-widget`,
      description: 'mailvet signup-form widget API (publishable keys)',
      createDefaultStage: false,
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Callers authenticate with a publishable x-api-key checked inside the function, with its origin ' +
        'lock and per-IP limits; API Gateway has no authorizer for such keys.',
    });
    const stage = this.loggedStage(
      api,
      { stage: 'WidgetStage', logs: 'WidgetApiAccessLogs' },
      { rateLimit: 50, burstLimit: 100 },
      props,
    );
    const preflightPaths = new Set(wiring.preflightRoutes.map((r) => r.path));
    const widgetRoutes = [
      ...wiring.routes.filter((r) => preflightPaths.has(r.path)),
      ...wiring.preflightRoutes,
    ];
    addLambdaRoutes(api, widgetRoutes, fn, (name) => `Widget${pascal(name)}Integration`);
    return { api, stage };
  }

  /** `api`'s `$default` stage: deployed on every change, throttled, its access logs kept `logRetention`. */
  private loggedStage(
    api: apigwv2.HttpApi,
    ids: { stage: string; logs: string },
    throttle: apigwv2.ThrottleSettings,
    props: ApiStackProps,
  ): apigwv2.HttpStage {
    const accessLogs = new logs.LogGroup(this, ids.logs, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    return new apigwv2.HttpStage(this, ids.stage, {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: accessLogFormat,
      },
    });
  }

  /** Exactly what the wiring's `access` says; nothing is granted anywhere else. */
  private grantAccess(fn: MailvetFunction, spec: FunctionSpec): void {
    const { access } = spec;
    const tableActionsOf = [...new Set(access.table.flatMap((a) => tableActions[a]))];
    if (tableActionsOf.length)
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: tableActionsOf, resources: [this.table.tableArn] }),
      );
    // Queries may go through the generic indexes; nothing else reads an index.
    if (access.table.includes('query'))
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: tableActions.query,
          resources: [`${this.table.tableArn}/index/*`],
        }),
      );
    if (access.bucketRead?.length)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['s3:GetObject', 's3:GetObjectVersion'],
          resources: access.bucketRead.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
        }),
      );
    if (access.bucketWrite?.length)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
          resources: access.bucketWrite.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
        }),
      );
    if (access.bucketDelete?.length)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['s3:DeleteObject'],
          resources: access.bucketDelete.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
        }),
      );
    // Listing, limited to the prefixes the function lists or deletes under. Never unconditioned: that
    // would disclose every key of the bucket (company and job ids) to the function.
    const listed = [...new Set([...(access.bucketList ?? []), ...(access.bucketDelete ?? [])])];
    if (listed.length)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [this.bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': listed.map((prefix) => `${prefix}*`) } },
        }),
      );
    // SendMessage alone: grantSendMessages would add GetQueueAttributes and GetQueueUrl, which no
    // function calls (queue URLs come from the environment; the queues use SQS-managed keys).
    if (access.sendsTo?.length)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['sqs:SendMessage'],
          resources: access.sendsTo.map((queue) => this.queues[queue].queue.queueArn),
        }),
      );
  }

  /** The wildcards each role needs, acknowledged one by one so that any other wildcard still fails nag. */
  private acknowledgeWildcards(fn: MailvetFunction, spec: FunctionSpec, refs: StatefulRefs): void {
    const role = fn.role;
    if (!role) return;
    const exportName = (token: string): string => {
      const resolved = this.resolve(token) as { 'Fn::ImportValue'?: string };
      const name = resolved['Fn::ImportValue'];
      if (typeof name !== 'string')
        throw new Error(`Expected an imported value, got ${JSON.stringify(resolved)}`);
      return name;
    };
    const acknowledge = (finding: string, reason: string) =>
      Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });

    acknowledge(
      'Resource::*',
      'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    );
    if (spec.access.table.includes('query'))
      acknowledge(
        `Resource::${exportName(refs.tableArn)}/index/*`,
        'Queries on the single table go through its generic GSIs (gsi1, gsi2); the wildcard covers only ' +
          "this table's indexes.",
      );
    const prefixes = new Set([
      ...(spec.access.bucketRead ?? []),
      ...(spec.access.bucketWrite ?? []),
      ...(spec.access.bucketDelete ?? []),
    ]);
    for (const prefix of prefixes)
      acknowledge(
        `Resource::${exportName(refs.bucketArn)}/${prefix}*`,
        `Object keys under ${prefix} carry job ids that are only known at run time; access is limited to ` +
          'this prefix, as functions/wiring.ts grants it.',
      );
  }

  /** CDK's singleton Lambda that writes the bucket's notification configuration. */
  private acknowledgeNotificationsHandler(): void {
    const handler = this.node.tryFindChild('BucketNotificationsHandler050a0587b7544547bf325f094a3db834');
    if (!handler) return;
    Validations.of(handler).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "CDK's BucketNotificationsHandler custom resource runs only during deploys; its role is built by " +
        'aws-cdk-lib and cannot be replaced, and the managed policy gives it nothing beyond writing logs.',
    });
  }
}

/** Adds `routes` to `api` with one Lambda integration per function, named `integrationId(function)`. */
function addLambdaRoutes(
  api: apigwv2.HttpApi,
  routes: readonly wiring.RouteSpec[],
  fn: (name: string) => MailvetFunction,
  integrationId: (name: string) => string,
): void {
  const integrations = new Map<string, HttpLambdaIntegration>();
  for (const r of routes) {
    let integration = integrations.get(r.function);
    if (!integration) {
      integration = new HttpLambdaIntegration(integrationId(r.function), fn(r.function));
      integrations.set(r.function, integration);
    }
    api.addRoutes({ path: r.path, methods: [apigwv2.HttpMethod[r.method]], integration });
  }
}
