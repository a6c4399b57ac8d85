// The one way mailvet builds a Lambda: runtime, architecture, tracing, its own log group and role,
// bundling and the shared environment are fixed here so no function drifts from the others.
import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FunctionSpec } from '../functions/wiring';

/** The repository root: wiring entries are relative to it and it holds the lock file esbuild resolves from. */
export const repoRoot = path.resolve(__dirname, '..');

export interface MailvetFunctionProps {
  spec: FunctionSpec;
  /** Settings every function reads (functions/settings.ts); NODE_OPTIONS is added here. */
  environment: Record<string, string>;
  logRetention?: logs.RetentionDays;
  logRemovalPolicy?: RemovalPolicy;
  /** Where Lambda puts an asynchronous invocation whose retries all failed (else it is dropped). */
  deadLetterQueue?: sqs.IQueue;
}

export class MailvetFunction extends NodejsFunction {
  readonly spec: FunctionSpec;

  constructor(scope: Construct, id: string, props: MailvetFunctionProps) {
    const { spec } = props;
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    // An own role instead of the default one: the default attaches AWSLambdaBasicExecutionRole, which may
    // write to every log group of the account; this one writes only to the function's log group.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `mailvet ${spec.name}`,
    });
    logGroup.grantWrite(role);

    super(scope, id, {
      entry: path.join(repoRoot, spec.entry),
      handler: 'handler',
      description: spec.description,
      // The newest Node runtime Lambda offers; cdk-nag's AwsSolutions-L1 wants the latest of the family.
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      tracing: lambda.Tracing.ACTIVE,
      logGroup,
      role,
      deadLetterQueue: props.deadLetterQueue,
      projectRoot: repoRoot,
      depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        // No Docker on build machines: esbuild from devDependencies bundles locally, or synth fails loudly.
        forceDockerBundling: false,
        format: OutputFormat.CJS,
        target: 'node24',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Bundle the AWS SDK too: the runtime's copy lags the versions the tests ran against, and the
        // clients rely on recent options (checksum modes); tree-shaking keeps the bundles small.
        externalModules: [],
      },
    });
    this.spec = spec;
  }
}
