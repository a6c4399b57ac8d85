// The web console in AWS: its files in a private bucket, served by CloudFront through origin access
// control (the bucket admits only this distribution), with config.json naming the API written at deploy
// time. ApiStack gives the HTTP API a CORS rule for `origin`.
import {
  AssetHashType,
  DefaultStackSynthesizer,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
  type CfnElement,
} from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { buildConsoleSyncTo, consoleRoot, contentSecurityPolicy } from '../console/build';
import { customResourceLogGroup } from './custom-resource-logs';

export interface ConsoleSiteProps {
  /** DESTROY (the default) suits a bucket that only holds build output, rebuilt by every deploy. */
  removalPolicy?: RemovalPolicy;
}

export class ConsoleSite extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** The console's origin, `https://<distribution domain>`, for the API's CORS rule. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;

    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds only the console build, written by the deployment and read only by CloudFront ' +
        'through origin access control; every viewer request is already in the distribution metrics.',
    });

    // The same policy the local runtime serves (console/build.ts): scripts and styles from the origin
    // only; connect-src https: because the API and the presigned S3 addresses are other origins.
    const headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      comment: 'mailvet console: security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: contentSecurityPolicy('https:'), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'mailvet web console',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
    });
    const acknowledge = (rule: string, reason: string) =>
      Validations.of(this.distribution).acknowledge({ id: `AwsSolutions-${rule}`, reason });
    acknowledge(
      'CFR1',
      'The console is a static page for signed-in company users anywhere; the API key, not geography, ' +
        'is the access control.',
    );
    acknowledge(
      'CFR2',
      'The distribution serves static files only, read-only (GET/HEAD); the API it calls has its own ' +
        'throttling and per-company rate limit.',
    );
    acknowledge(
      'CFR3',
      'Standard access logs need an ACL-enabled log bucket, which BucketOwnerEnforced buckets forbid; the ' +
        "distribution's CloudWatch metrics cover requests and errors of these static files.",
    );
    acknowledge(
      'CFR4',
      'The default *.cloudfront.net certificate cannot pin a minimum TLS version (CloudFront ignores ' +
        'minimumProtocolVersion without a custom certificate); attach a custom domain to raise it.',
    );
    this.origin = `https://${this.distribution.distributionDomainName}`;
  }

  /**
   * Deploys the built console and config.json (naming `apiUrl`) to the bucket. esbuild builds the
   * console at synth time on this machine (no Docker), like the functions.
   */
  /** `people`: where the console signs people in (the user pool's endpoint and app client). */
  deploy(apiUrl: string, people?: { endpoint: string; clientId: string }): s3deploy.BucketDeployment {
    const deployment = new s3deploy.BucketDeployment(this, 'Deployment', {
      destinationBucket: this.bucket,
      sources: [
        s3deploy.Source.asset(consoleRoot, {
          assetHashType: AssetHashType.OUTPUT,
          bundling: {
            image: DockerImage.fromRegistry('scratch'),
            local: {
              tryBundle(outputDir: string) {
                buildConsoleSyncTo(outputDir);
                return true;
              },
            },
          },
        }),
        s3deploy.Source.jsonData('config.json', { apiUrl, ...(people ? { people } : {}) }),
      ],
      // index.html, app.js and config.json keep their names across deploys: browsers revalidate them.
      cacheControl: [s3deploy.CacheControl.noCache()],
      prune: true,
      // Deleting the stack deletes the files first, so the (DESTROY) bucket is empty when it goes.
      retainOnDelete: false,
      memoryLimit: 256,
      logGroup: customResourceLogGroup(this, 'DeploymentLogs'),
    });
    acknowledgeBucketDeployment(Stack.of(this), this.bucket);
    return deployment;
  }
}

/** CDK's singleton Lambda that copies the assets into the bucket during deploys: its findings, one by one. */
function acknowledgeBucketDeployment(stack: Stack, bucket: s3.Bucket): void {
  const bucketId = stack.getLogicalId(bucket.node.defaultChild as CfnElement);
  // cdk-nag names the asset bucket with the stack's account and region when they are known.
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  const assetBucket = `cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-${account}-${region}`;
  for (const child of stack.node.children) {
    if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
    const reason = (what: string) =>
      `CDK's BucketDeployment custom resource runs only during deploys; ${what}. Its function and role ` +
      'are built by aws-cdk-lib and cannot be replaced.';
    const copying = reason(
      'it reads the CDK asset bucket and replaces every object of the console bucket, whose keys change ' +
        'with each build, so its S3 actions and object ARNs end in wildcards',
    );
    Validations.of(child).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: reason('the managed policy lets it write its own logs and nothing else'),
      },
      ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: copying,
      })),
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${assetBucket}/*]`,
        reason: copying,
      },
      { id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`, reason: copying },
      {
        id: 'AwsSolutions-L1',
        reason: reason('aws-cdk-lib pins the runtime of its own deployment function'),
      },
    );
  }
}
