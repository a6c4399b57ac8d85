// The stack's secrets. The sealed secrets' KMS key: one key in the stateful stack (rotation on, retained
// like the data, an alias, the default key policy that leaves its use to IAM), and in the api stack
// exactly the KMS actions each function declares in access.secrets, with SECRETS_KMS_KEY_ID only on
// those functions. The platform credentials' secret: created with placeholders, readable (and named in
// PLATFORM_CREDENTIALS_SECRET) only by the functions that declare access.platformCredentials.
// The wiring is given three fixture declarations here (before the synth), since no function of the
// real one seals yet.
import { RemovalPolicy, Stack, type CfnElement } from 'aws-cdk-lib';
import { platformCredentialNames } from '../../functions/settings';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as wiring from '../../functions/wiring';
import { createMailvet, type MailvetStacks } from '../../lib/mailvet';
import { isAllowed } from '../../local/iam/evaluate';
import { synthesizePolicies } from '../../local/iam/template-policies';
import { localResources } from '../../local/runtime';
import { nagErrorsOf, synthMailvet, synthWithNag } from './synth';

const declared: Record<string, ('encrypt' | 'decrypt')[]> = {
  // the real wiring's declarations (connected mailboxes), then the fixtures
  ...Object.fromEntries(
    wiring.functions.flatMap((f) => (f.access.secrets ? [[f.name, f.access.secrets]] : [])),
  ),
  inviteUser: ['encrypt'],
  getUser: ['decrypt'],
  sendInvite: ['encrypt', 'decrypt'],
};
const readsCredentials = new Set(['getUser', 'listUsers']);

type Json = Record<string, unknown>;
let stacks: MailvetStacks;
let api: Template;
let data: Template;
let nagErrors: string[];

// Each test file has its own module registry: the wiring changed here is this file's alone.
const originalAccess = new Map<string, wiring.FunctionAccess>();
beforeAll(() => {
  for (const spec of wiring.functions) {
    const secrets = declared[spec.name];
    const platformCredentials = readsCredentials.has(spec.name);
    if (!secrets && !platformCredentials) continue;
    originalAccess.set(spec.name, spec.access);
    spec.access = {
      ...spec.access,
      ...(secrets ? { secrets } : {}),
      ...(platformCredentials ? { platformCredentials } : {}),
    };
  }
  const { report } = synthWithNag((app) => {
    stacks = createMailvet(app);
  });
  nagErrors = nagErrorsOf(report);
  api = Template.fromStack(stacks.api);
  data = Template.fromStack(stacks.stateful);
});
afterAll(() => {
  for (const spec of wiring.functions) spec.access = originalAccess.get(spec.name) ?? spec.access;
});

const roleIdOf = (name: string): string => {
  const role = stacks.api.functions.get(name)!.role!;
  return Stack.of(role).getLogicalId(role.node.defaultChild as CfnElement);
};

/** The KMS statements of a function's role. */
function kmsStatements(name: string): Json[] {
  const roleId = roleIdOf(name);
  return Object.values(api.findResources('AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement)
    .filter((s) => JSON.stringify(s.Action).includes('kms:'));
}

function environmentOf(name: string): Json {
  const fnId = Stack.of(stacks.api).getLogicalId(
    stacks.api.functions.get(name)!.node.defaultChild as CfnElement,
  );
  const fn = api.toJSON().Resources[fnId] as { Properties: { Environment: { Variables: Json } } };
  return fn.Properties.Environment.Variables;
}

describe('the sealed-secrets key', () => {
  test('is one symmetric key with yearly rotation, retained, under an alias', () => {
    data.resourceCountIs('AWS::KMS::Key', 1);
    data.hasResource('AWS::KMS::Key', {
      Properties: { EnableKeyRotation: true, RotationPeriodInDays: 365, PendingWindowInDays: 30 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    data.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: `alias/${stacks.stateful.stackName}-secrets`,
    });
    data.hasOutput('*', { Export: { Name: `${stacks.stateful.stackName}-SecretsKeyArn` } });
  });

  test("has the default key policy: only the account itself, so the functions' IAM policies decide", () => {
    const [key] = Object.values(data.findResources('AWS::KMS::Key'));
    const statements = (key!.Properties.KeyPolicy as { Statement: Json[] }).Statement;
    expect(statements).toHaveLength(1);
    // exactly this: no service, wildcard or other account principal (Resource * is the key itself)
    expect(statements[0]).toEqual({
      Effect: 'Allow',
      Resource: '*',
      Action: 'kms:*',
      Principal: {
        AWS: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']],
        },
      },
    });
  });

  test('follows the stage removal policy like the other stateful resources', () => {
    const throwaway = synthMailvet({ removalPolicy: RemovalPolicy.DESTROY });
    throwaway.data.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete' });
  });
});

describe("each function's KMS access", () => {
  test.each(wiring.functions.map((f) => [f.name]))('%s has exactly the KMS actions it declares', (name) => {
    const statements = kmsStatements(name);
    // the fixtures above, or what the function itself declares in the wiring
    const wanted = wiring.functionByName(name).access.secrets;
    if (!wanted) {
      expect(statements).toEqual([]);
      expect(environmentOf(name).SECRETS_KMS_KEY_ID).toBeUndefined();
      return;
    }
    const keyArn = { 'Fn::ImportValue': `${stacks.stateful.stackName}-SecretsKeyArn` };
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action:
          wanted.length === 1
            ? `kms:${wanted[0] === 'encrypt' ? 'Encrypt' : 'Decrypt'}`
            : ['kms:Decrypt', 'kms:Encrypt'],
        Resource: keyArn,
        Condition: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['companyId', 'purpose'] },
          Null: { 'kms:EncryptionContext:companyId': 'false', 'kms:EncryptionContext:purpose': 'false' },
        },
      },
    ]);
    expect(environmentOf(name).SECRETS_KMS_KEY_ID).toEqual(keyArn);
  });

  test('no statement anywhere grants KMS beyond Encrypt and Decrypt', () => {
    const actions = Object.values(api.findResources('AWS::IAM::Policy'))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement)
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]) as string[])
      .filter((a) => a.startsWith('kms:'));
    expect(new Set(actions)).toEqual(new Set(['kms:Encrypt', 'kms:Decrypt']));
    api.resourcePropertiesCountIs(
      'AWS::IAM::Policy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Action: Match.stringLikeRegexp('kms:\\*') })]),
        },
      },
      0,
    );
  });

  test('cdk-nag stays clean with the key, the secret and the grants', () => {
    expect(nagErrors).toEqual([]);
  });
});

describe('the platform credentials secret', () => {
  const secretArn = () => ({
    'Fn::ImportValue': `${stacks.stateful.stackName}-PlatformCredentialsSecretArn`,
  });

  test('is one secret, named under the stack, holding an empty placeholder per credential, retained', () => {
    data.resourceCountIs('AWS::SecretsManager::Secret', 1);
    data.hasResource('AWS::SecretsManager::Secret', {
      Properties: { Name: `${stacks.stateful.stackName}/platform-credentials` },
      DeletionPolicy: 'Retain',
    });
    const [secret] = Object.values(data.findResources('AWS::SecretsManager::Secret'));
    // the placeholder JSON as is: no generated or real value in the template
    expect(JSON.parse(secret!.Properties.SecretString as string)).toEqual(
      Object.fromEntries(platformCredentialNames.map((name) => [name, ''])),
    );
    expect(secret!.Properties.GenerateSecretString).toBeUndefined();
    data.hasOutput('*', { Export: { Name: `${stacks.stateful.stackName}-PlatformCredentialsSecretArn` } });
  });

  test.each(wiring.functions.map((f) => [f.name]))('%s may read it only if it declares it', (name) => {
    const reads = Object.values(api.findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleIdOf(name)))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Json[] }).Statement)
      .filter((s) => JSON.stringify(s.Action).includes('secretsmanager:'));
    // the fixtures above, or what the function itself declares in the wiring
    if (!wiring.functionByName(name).access.platformCredentials) {
      expect(reads).toEqual([]);
      expect(environmentOf(name).PLATFORM_CREDENTIALS_SECRET).toBeUndefined();
      return;
    }
    expect(reads).toEqual([
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretArn() },
    ]);
    expect(environmentOf(name).PLATFORM_CREDENTIALS_SECRET).toEqual({
      'Fn::Join': ['', ['secretsmanager:', secretArn()]],
    });
  });
});

describe("the local runtime's recorded-call check", () => {
  test('resolves the key and the secret to local names, and the grants change nothing else', () => {
    // what test/helpers/iam-check.ts reads (synthesized here with this file's declarations)
    const policies = synthesizePolicies(localResources);
    const local = (service: string, rest: string) =>
      `arn:aws:${service}:${localResources.region}:${localResources.account}:${rest}`;
    const kms = policies.sendInvite!.filter((s) => JSON.stringify(s.Action).includes('kms:'));
    expect(kms).toEqual([expect.objectContaining({ Resource: local('kms', 'key/local-secrets') })]);
    const reads = policies.getUser!.filter((s) => JSON.stringify(s.Action).includes('secretsmanager:'));
    expect(reads).toEqual([
      expect.objectContaining({
        Resource: local('secretsmanager', 'secret:mailvet-platform-credentials-local'),
      }),
    ]);
    // locally nothing calls KMS or Secrets Manager; the function's table calls are allowed as before
    const table = local('dynamodb', `table/${localResources.table}`);
    expect(isAllowed(policies.getUser!, { action: 'dynamodb:GetItem', resource: table, context: {} })).toBe(
      true,
    );
    expect(isAllowed(policies.getUser!, { action: 'dynamodb:Scan', resource: table, context: {} })).toBe(
      false,
    );
  });
});
