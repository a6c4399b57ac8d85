// The KMS key of the sealed secrets (functions/clients/secret-box.ts): StatefulStack owns it (rotated
// yearly, kept like the data it protects); ApiStack gives each function that declares
// `access.secrets` in the wiring SECRETS_KMS_KEY_ID and exactly the KMS actions it declares, on that
// key, and only with the {purpose, companyId} encryption context the secret box always sends.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { FunctionSpec } from '../functions/wiring';
import type { MailvetFunction } from './mailvet-function';

/** The key's alias, under the stack's name: `alias/<stack>-secrets`. */
const secretsKeyAlias = (stackName: string): string => `alias/${stackName}-secrets`;

export function createSecretsKey(scope: Construct, stackName: string, removalPolicy: RemovalPolicy): kms.Key {
  return new kms.Key(scope, 'SecretsKey', {
    description: 'mailvet sealed secrets: OAuth grants and mailbox passwords (envelope data keys)',
    enableKeyRotation: true,
    rotationPeriod: Duration.days(365),
    // The default key policy: the account's root may administer and use the key, so the functions'
    // IAM policies (below) decide who uses it, and nothing else does.
    alias: secretsKeyAlias(stackName),
    // Deleting the key makes every sealed value unreadable: it stays, like the table, unless the stage
    // is a throwaway one (then KMS still waits the minimum pending window).
    removalPolicy,
    pendingWindow: Duration.days(30),
  });
}

/** The KMS action of each `access.secrets` entry. */
const secretActions: Record<'encrypt' | 'decrypt', string> = {
  encrypt: 'kms:Encrypt',
  decrypt: 'kms:Decrypt',
};

/** SECRETS_KMS_KEY_ID and the declared KMS actions for each function whose spec asks for them. */
export function grantSealedSecrets(
  functions: ReadonlyMap<string, MailvetFunction>,
  specs: readonly FunctionSpec[],
  keyArn: string,
): void {
  for (const spec of specs) {
    const declared = [...new Set(spec.access.secrets ?? [])];
    if (declared.length === 0) continue;
    const fn = functions.get(spec.name);
    if (!fn) throw new Error(`No function named ${spec.name} in functions/wiring.ts`);
    fn.addEnvironment('SECRETS_KMS_KEY_ID', keyArn);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: declared.map((a) => secretActions[a]).sort(),
        resources: [keyArn],
        // Only with the context the secret box binds every value to: no call without a company.
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['companyId', 'purpose'] },
          Null: { 'kms:EncryptionContext:companyId': 'false', 'kms:EncryptionContext:purpose': 'false' },
        },
      }),
    );
  }
}
