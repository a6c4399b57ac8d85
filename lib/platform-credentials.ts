// The sales platforms' OAuth client credentials in AWS: one Secrets Manager secret, created by
// StatefulStack with an empty placeholder for each credential (docs/deploy.md, "Sales platform
// credentials", says how to fill it in), and readable only by the functions whose wiring declares
// `access.platformCredentials`, which get PLATFORM_CREDENTIALS_SECRET pointing at it.
import { RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { platformCredentialNames } from '../functions/settings';
import type { FunctionSpec } from '../functions/wiring';
import type { MailvetFunction } from './mailvet-function';

/** The secret's name: `<stack>/platform-credentials`. */
const platformCredentialsSecretName = (stackName: string): string => `${stackName}/platform-credentials`;

export function createPlatformCredentialsSecret(
  scope: Construct,
  stackName: string,
  removalPolicy: RemovalPolicy,
): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, 'PlatformCredentials', {
    secretName: platformCredentialsSecretName(stackName),
    description:
      'mailvet: OAuth client ids and secrets of Outreach and Salesloft (JSON); empty values mean not configured',
    // Placeholders only, no credential: an operator puts the real values in once (docs/deploy.md), and
    // a redeploy never overwrites them (CloudFormation sets SecretString only when it creates the secret).
    secretObjectValue: Object.fromEntries(
      platformCredentialNames.map((name) => [name, SecretValue.unsafePlainText('')]),
    ),
    removalPolicy,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'OAuth client secrets are issued by Outreach and Salesloft in their developer consoles; no Lambda can ' +
      'rotate them. They are rotated there and put into this secret by hand (docs/deploy.md).',
  });
  return secret;
}

/** PLATFORM_CREDENTIALS_SECRET and GetSecretValue on that secret for each function that declares it. */
export function grantPlatformCredentials(
  functions: ReadonlyMap<string, MailvetFunction>,
  specs: readonly FunctionSpec[],
  secretArn: string,
): void {
  for (const spec of specs) {
    if (!spec.access.platformCredentials) continue;
    const fn = functions.get(spec.name);
    if (!fn) throw new Error(`No function named ${spec.name} in functions/wiring.ts`);
    fn.addEnvironment('PLATFORM_CREDENTIALS_SECRET', `secretsmanager:${secretArn}`);
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }),
    );
  }
}
