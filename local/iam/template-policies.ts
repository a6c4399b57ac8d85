// Each function's IAM statements as the stack deploys them: synthesizes the app (without bundling) and
// reads every policy on each function's role out of ApiStack's template, with the imports of
// StatefulStack's exports resolved to the local runtime's resources, so that a recorded call and a
// statement name the same ARN.
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { queues } from '../../functions/wiring';
import { createMailvet, featureFlags, type MailvetStacks } from '../../lib/mailvet';
import type { FunctionPolicies, PolicyStatement, ResourceNames } from './evaluate';

/** The local runtime's names for the stateful resources (local/runtime.ts creates them so). */
export interface LocalResources extends ResourceNames {
  table: string;
  bucket: string;
  /** The queue's local name, e.g. `mailvet-chunks`; its DLQ's is this plus `-dlq`. */
  queueName(queue: string): string;
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The values of StatefulStack's exports, by export suffix, as the local runtime's resources. */
function localExports(local: LocalResources): Map<string, string> {
  const sqsArn = (name: string) => `arn:aws:sqs:${local.region}:${local.account}:${name}`;
  const values = new Map<string, string>([
    ['TableArn', `arn:aws:dynamodb:${local.region}:${local.account}:table/${local.table}`],
    ['TableName', local.table],
    ['BucketArn', `arn:aws:s3:::${local.bucket}`],
    ['BucketName', local.bucket],
    // Locally nothing calls KMS (secrets are sealed with the key file), so no call ever meets this name.
    ['SecretsKeyArn', `arn:aws:kms:${local.region}:${local.account}:key/local-secrets`],
    // Nor Secrets Manager: the platform credentials are plain settings locally.
    [
      'PlatformCredentialsSecretArn',
      `arn:aws:secretsmanager:${local.region}:${local.account}:secret:mailvet-platform-credentials-local`,
    ],
  ]);
  for (const { name } of queues) {
    values.set(`${pascal(name)}QueueArn`, sqsArn(local.queueName(name)));
    values.set(`${pascal(name)}DeadLetterQueueArn`, sqsArn(`${local.queueName(name)}-dlq`));
  }
  return values;
}

/** Intrinsics to strings: imports to local values, pseudo parameters to the local region and account. */
function resolver(stateful: string, local: LocalResources): (value: unknown) => unknown {
  const exports = localExports(local);
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': local.region,
    'AWS::AccountId': local.account,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string' || typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map(resolve);
    const v = value as Record<string, unknown>;
    if ('Fn::ImportValue' in v) {
      const name = String(v['Fn::ImportValue']);
      const found = name.startsWith(`${stateful}-`) && exports.get(name.slice(stateful.length + 1));
      if (!found) throw new Error(`No local value for the export ${name}`);
      return found;
    }
    if ('Fn::Join' in v) {
      const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => String(resolve(p))).join(separator);
    }
    // The stack's own resources (log groups, functions): opaque names no data call can match.
    if ('Ref' in v) return pseudo[String(v.Ref)] ?? `cfn:${String(v.Ref)}`;
    if ('Fn::GetAtt' in v) return `cfn:${(v['Fn::GetAtt'] as string[]).join('.')}`;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  };
  return resolve;
}

/** Reads each function's statements out of a synthesized ApiStack. */
function policiesOf(stacks: MailvetStacks, local: LocalResources): FunctionPolicies {
  const template = Template.fromStack(stacks.api).toJSON() as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };
  const resolve = resolver(stacks.stateful.stackName, local);
  const policies: FunctionPolicies = {};
  for (const [name, fn] of stacks.api.functions) {
    const roleId = Stack.of(fn).getLogicalId(fn.role!.node.defaultChild as CfnElement);
    const statements: PolicyStatement[] = [];
    for (const resource of Object.values(template.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const roles = resource.Properties.Roles as { Ref?: string }[];
      if (!roles.some((r) => r.Ref === roleId)) continue;
      const document = resource.Properties.PolicyDocument as { Statement: unknown[] };
      for (const s of document.Statement) statements.push(resolve(s) as PolicyStatement);
    }
    policies[name] = statements;
  }
  return policies;
}

/** Synthesizes the app as `cdk synth` would (bundling skipped: only the roles matter here). */
export function synthesizePolicies(local: LocalResources): FunctionPolicies {
  const app = new App({ context: { ...featureFlags, 'aws:cdk:bundling-stacks': [] } });
  return policiesOf(createMailvet(app), local);
}
