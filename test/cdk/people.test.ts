// The user pool and its console client (no self sign-up, the policy of
// functions/domain/people/password-policy.ts, threat protection), and every API route's function able
// to verify tokens of that pool and no other; the Admin* grants of functions/wiring/people.ts only.
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { passwordPolicy } from '../../functions/domain/people/password-policy';
import * as wiring from '../../functions/wiring';
import { peopleDirectoryAccess } from '../../functions/wiring/people';
import type { MailvetStacks } from '../../lib/mailvet';
import { synthMailvet } from './synth';

let stacks: MailvetStacks;
let api: Template;
let data: Template;

beforeAll(() => {
  ({ stacks, api, data } = synthMailvet());
});

const exportName = (what: string) => `${stacks.stateful.stackName}-${what}`;
const imported = (what: string) => ({ 'Fn::ImportValue': exportName(what) });

describe('the user pool', () => {
  it('has email as the username, no self sign-up, the shared password policy and threat protection', () => {
    data.resourceCountIs('AWS::Cognito::UserPool', 1);
    data.hasResourceProperties('AWS::Cognito::UserPool', {
      UsernameAttributes: ['email'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: {
        PasswordPolicy: {
          MinimumLength: passwordPolicy.minLength,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
          TemporaryPasswordValidityDays: 1,
        },
      },
      UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
      UserPoolTier: 'PLUS',
      DeletionProtection: 'ACTIVE',
    });
    data.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
  });

  it('has one console client without a secret, SRP and password auth, and short-lived tokens', () => {
    data.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    data.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayEquals([
        'ALLOW_USER_PASSWORD_AUTH',
        'ALLOW_USER_SRP_AUTH',
        'ALLOW_REFRESH_TOKEN_AUTH',
      ]),
      AccessTokenValidity: 60,
      IdTokenValidity: 60,
      RefreshTokenValidity: 43200,
      TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'minutes' },
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
    });
  });
});

describe('the API functions', () => {
  const routeFunctions = [...new Set(wiring.routes.map((route) => route.function))];

  it.each(routeFunctions)('%s verifies tokens of that pool and its console client, no other', (name) => {
    const fn = stacks.api.functions.get(name)!;
    const id = stacks.api.getLogicalId(fn.node.defaultChild as never);
    const props = api.toJSON().Resources[id].Properties as {
      Environment: { Variables: Record<string, unknown> };
    };
    const env = props.Environment.Variables;
    expect(env.PEOPLE_USER_POOL_ID).toEqual(imported('UserPoolId'));
    expect(env.PEOPLE_CLIENT_ID).toEqual(imported('UserPoolClientId'));
    // The issuer is built from that pool's id alone: https://cognito-idp.<region>.<suffix>/<pool id>.
    expect(env.PEOPLE_TOKEN_ISSUER).toEqual({
      'Fn::Join': [
        '',
        [
          'https://cognito-idp.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          '/',
          imported('UserPoolId'),
        ],
      ],
    });
    expect(env.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER).toBeUndefined();
  });

  it('gives the Admin* actions of the people wiring, on that pool only, to those functions alone', () => {
    const policies = Object.values(api.findResources('AWS::IAM::Policy')) as {
      Properties: {
        Roles: { Ref: string }[];
        PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] };
      };
    }[];
    const roleOf = (name: string) =>
      stacks.api.getLogicalId(stacks.api.functions.get(name)!.role!.node.defaultChild as never);
    const cognitoGrants = new Map<string, { actions: string[]; resources: unknown[] }>();
    for (const policy of policies)
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        const actions = [statement.Action].flat().filter((a) => a.startsWith('cognito-idp:'));
        if (actions.length === 0) continue;
        for (const role of policy.Properties.Roles) {
          const seen = cognitoGrants.get(role.Ref) ?? { actions: [], resources: [] };
          seen.actions.push(...actions);
          seen.resources.push(statement.Resource);
          cognitoGrants.set(role.Ref, seen);
        }
      }
    const expected = new Map(
      Object.entries(peopleDirectoryAccess).map(([name, actions]) => [roleOf(name), actions]),
    );
    expect([...cognitoGrants.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [role, grant] of cognitoGrants) {
      expect(grant.actions.sort()).toEqual([...expected.get(role)!].sort());
      for (const resource of grant.resources) expect(resource).toEqual(imported('UserPoolArn'));
    }
  });

  it('lets the console send the Authorization header', () => {
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowHeaders: Match.arrayWith(['authorization']) }),
    });
  });
});
