// Everything that holds data and outlives a deploy: the table, the bucket (and its access-log bucket), the
// queues with their dead-letter queues and alarms. The functions that use them live in ApiStack.
import { Annotations, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { resultsLifecycleGraceSeconds, resultsRetentionSeconds } from '../functions/domain/bulk/limits';
import { globalIndexes, tableKeys, ttlAttribute } from '../functions/store/table';
import * as wiring from '../functions/wiring';
import type { QueueName } from '../functions/wiring';
import { checkWiring, deadLetterVisibilityTimeoutSeconds } from './wiring-checks';
import { repoRoot } from './mailvet-function';
import { createPlatformCredentialsSecret } from './platform-credentials';
import { createSecretsKey } from './sealed-secrets';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as kms from 'aws-cdk-lib/aws-kms';

export interface QueuePair {
  queue: sqs.Queue;
  deadLetterQueue: sqs.Queue;
}

/**
 * What ApiStack needs, as `Fn::ImportValue`s of exports named `<stack>-<what>`. Named exports instead of
 * CDK's automatic cross-stack references keep the names stable and readable, in templates, in the tests
 * and in the cdk-nag findings acknowledged on them.
 */
export interface StatefulRefs {
  alarmTopicArn: string;
  tableArn: string;
  tableName: string;
  bucketArn: string;
  bucketName: string;
  /** The KMS key of the sealed secrets (lib/sealed-secrets.ts). */
  secretsKeyArn: string;
  /** The sales platforms' OAuth client credentials (lib/platform-credentials.ts). */
  platformCredentialsSecretArn: string;
  queues: Record<QueueName, { queueArn: string; queueUrl: string; deadLetterQueueArn: string }>;
}

export interface StatefulStackProps extends StackProps {
  /** RETAIN (the default) keeps table and buckets when the stack is deleted; DESTROY suits throwaway stages. */
  removalPolicy?: RemovalPolicy;
  /**
   * Origins allowed to PUT uploads and GET results through presigned URLs from a browser (the web
   * console's, and the API's other browser origins); none by default.
   */
  corsAllowedOrigins?: string[];
  /** A main queue whose oldest message is older than this is stuck: its consumer is failing or throttled. */
  oldestMessageAlarmAfter?: Duration;
  /** An address subscribed to the alarm topic (context `alarmEmail`); unset: subscribe yourself. */
  alarmEmail?: string;
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

export class StatefulStack extends Stack {
  readonly table: dynamodb.Table;
  readonly bucket: s3.Bucket;
  readonly queues: Record<QueueName, QueuePair>;
  readonly refs: StatefulRefs;
  /** Every alarm of both stacks notifies this topic. */
  readonly alarmTopic: sns.Topic;
  /** Seals OAuth grants and mailbox passwords (functions/clients/secret-box.ts). */
  readonly secretsKey: kms.Key;
  /** The OAuth client credentials of Outreach and Salesloft, filled in by an operator. */
  readonly platformCredentials: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: StatefulStackProps = {}) {
    super(scope, id, props);
    checkWiring(wiring, repoRoot);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableKeys.partition, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableKeys.sort, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: ttlAttribute,
      // The AWS managed key: encrypted with an auditable key, and no key policy for grants to maintain.
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    for (const index of globalIndexes)
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partition, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sort, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });

    this.bucket = this.createBucket(removalPolicy, props.corsAllowedOrigins ?? []);
    this.secretsKey = createSecretsKey(this, this.stackName, removalPolicy);
    this.platformCredentials = createPlatformCredentialsSecret(this, this.stackName, removalPolicy);

    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'mailvet alarms',
      enforceSSL: true,
    });
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and states only; a customer managed KMS key (with a key ' +
        'policy for CloudWatch) would add cost and a key to manage for no data worth protecting.',
    });
    if (props.alarmEmail)
      this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    else
      Annotations.of(this.alarmTopic).addWarning(
        'No alarm subscriber: alarms notify a topic nobody reads. Deploy with -c alarmEmail=ops@yourdomain.com ' +
          'or subscribe to the topic of the <prefix>-data-AlarmTopicArn export yourself.',
      );

    const oldestMessageAlarmAfter = props.oldestMessageAlarmAfter ?? Duration.hours(1);
    const pairs: Partial<Record<QueueName, QueuePair>> = {};
    for (const spec of wiring.queues)
      pairs[spec.name] = this.createQueue(spec, oldestMessageAlarmAfter, removalPolicy);
    this.queues = pairs as Record<QueueName, QueuePair>;

    const queueRefs: Partial<StatefulRefs['queues']> = {};
    for (const spec of wiring.queues) {
      const pair = this.queues[spec.name];
      const id = pascal(spec.name);
      queueRefs[spec.name] = {
        queueArn: this.share(pair.queue.queueArn, `${id}QueueArn`),
        queueUrl: this.share(pair.queue.queueUrl, `${id}QueueUrl`),
        deadLetterQueueArn: this.share(pair.deadLetterQueue.queueArn, `${id}DeadLetterQueueArn`),
      };
    }
    this.refs = {
      alarmTopicArn: this.share(this.alarmTopic.topicArn, 'AlarmTopicArn'),
      tableArn: this.share(this.table.tableArn, 'TableArn'),
      tableName: this.share(this.table.tableName, 'TableName'),
      bucketArn: this.share(this.bucket.bucketArn, 'BucketArn'),
      bucketName: this.share(this.bucket.bucketName, 'BucketName'),
      secretsKeyArn: this.share(this.secretsKey.keyArn, 'SecretsKeyArn'),
      platformCredentialsSecretArn: this.share(
        this.platformCredentials.secretArn,
        'PlatformCredentialsSecretArn',
      ),
      queues: queueRefs as StatefulRefs['queues'],
    };
  }

  private share(value: string, name: string): string {
    return this.exportValue(value, { name: `${this.stackName}-${name}` });
  }

  private createBucket(removalPolicy: RemovalPolicy, corsAllowedOrigins: string[]): s3.Bucket {
    const accessLogs = new s3.Bucket(this, 'AccessLogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }],
      removalPolicy,
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the server access log bucket itself; logging its own access would log the logging.',
    });

    return new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Bulk jobs pin the version of the upload they chunk, so a re-upload under the same key cannot
      // change a job halfway through.
      versioned: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'bucket/',
      // Browsers PUT uploads and GET results straight to S3 through presigned URLs; the signature
      // authorizes, and only the listed origins' pages may make those requests from a browser.
      cors:
        corsAllowedOrigins.length === 0
          ? undefined
          : [
              {
                allowedMethods: [s3.HttpMethods.PUT, s3.HttpMethods.GET],
                allowedOrigins: corsAllowedOrigins,
                allowedHeaders: ['content-type'],
                exposedHeaders: ['etag'],
                maxAge: 3600,
              },
            ],
      lifecycleRules: [
        { id: 'expire-uploads', prefix: wiring.uploadsPrefix, expiration: Duration.days(2) },
        { id: 'expire-parts', prefix: wiring.partsPrefix, expiration: Duration.days(2) },
        // One day after the API stops handing results out (docs/bulk.md, "Retention").
        {
          id: 'expire-results',
          prefix: wiring.resultsPrefix,
          expiration: Duration.seconds(resultsRetentionSeconds + resultsLifecycleGraceSeconds),
        },
        { id: 'abort-incomplete-multipart', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Expiring a current version only hides it behind a delete marker; this removes the bytes.
        {
          id: 'expire-noncurrent',
          noncurrentVersionExpiration: Duration.days(1),
          expiredObjectDeleteMarker: true,
        },
      ],
      removalPolicy,
    });
  }

  private createQueue(
    spec: wiring.QueueSpec,
    oldestMessageAlarmAfter: Duration,
    removalPolicy: RemovalPolicy,
  ): QueuePair {
    const id = pascal(spec.name);
    const common = {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Like the table and the bucket: a retained stack keeps the work queued and given up on.
      removalPolicy,
    };
    const deadLetterQueue = new sqs.Queue(this, `${id}DeadLetterQueue`, {
      ...common,
      // SQS counts retention from the original send, so the DLQ keeps messages longer than its queue.
      retentionPeriod: Duration.seconds(wiring.deadLetterRetentionSeconds),
      queueName: `${this.stackName}-${spec.name}-dlq`,
      visibilityTimeout: Duration.seconds(deadLetterVisibilityTimeoutSeconds(wiring, spec.name)),
    });
    const queue = new sqs.Queue(this, `${id}Queue`, {
      ...common,
      retentionPeriod: Duration.seconds(spec.retentionSeconds),
      queueName: `${this.stackName}-${spec.name}`,
      visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
    });

    // Any message on a DLQ means work was given up on. Its fail* consumer drains it within seconds, so
    // visible messages rarely show: alarm on the first receive, and on messages left visible (a consumer
    // that is not running).
    const notify = new cloudwatchActions.SnsAction(this.alarmTopic);
    deadLetterQueue
      .metricNumberOfMessagesReceived({ period: Duration.minutes(1), statistic: 'Sum' })
      .createAlarm(this, `${id}DeadLetterReceivedAlarm`, {
        alarmDescription: `mailvet ${spec.name}: a message reached the dead-letter queue`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      })
      .addAlarmAction(notify);
    deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' })
      .createAlarm(this, `${id}DeadLetterAlarm`, {
        alarmDescription: `mailvet ${spec.name}: messages on the dead-letter queue`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      })
      .addAlarmAction(notify);
    queue
      .metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' })
      .createAlarm(this, `${id}OldestMessageAlarm`, {
        alarmDescription: `mailvet ${spec.name}: oldest message waits longer than expected`,
        threshold: oldestMessageAlarmAfter.toSeconds(),
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      })
      .addAlarmAction(notify);
    return { queue, deadLetterQueue };
  }
}
