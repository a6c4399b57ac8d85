// People and sign-in in AWS: the Cognito user pool (in the stateful stack: people outlive redeploys of
// the functions) with the console's app client, and what the API stack gives the functions: every
// function the pool's ids and issuer (to verify tokens; no grant needed, the keys are public) and the
// few that manage people exactly the Admin* actions of functions/wiring/people.ts on that one pool.
import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { passwordPolicy } from '../functions/domain/people/password-policy';
import { peopleDirectoryAccess } from '../functions/wiring/people';
import type { MailvetFunction } from './mailvet-function';

/** What the API stack needs of the pool (imports of the stateful stack's exports). */
export interface PeopleRefs {
  userPoolId: string;
  userPoolArn: string;
  clientId: string;
}

export class PeoplePool extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.userPool = new cognito.UserPool(this, 'UserPool', {
      userPoolName: `${Stack.of(this).stackName}-people`,
      // Email is the username; nobody signs up: people enter only by accepting an invite (AdminCreateUser).
      signInAliases: { email: true, username: false },
      signInCaseSensitive: false,
      selfSignUpEnabled: false,
      autoVerify: { email: false },
      keepOriginal: { email: true },
      passwordPolicy: {
        minLength: passwordPolicy.minLength,
        requireLowercase: passwordPolicy.requireLowercase,
        requireUppercase: passwordPolicy.requireUppercase,
        requireDigits: passwordPolicy.requireDigits,
        requireSymbols: passwordPolicy.requireSymbols,
        tempPasswordValidity: Duration.days(1),
        passwordHistorySize: 5,
      },
      // Forgotten passwords go through mailvet's own one-time links and mail transport, not Cognito's.
      accountRecovery: cognito.AccountRecovery.NONE,
      // Threat protection: compromised-credential checks and adaptive authentication, enforced.
      featurePlan: cognito.FeaturePlan.PLUS,
      standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
      mfa: cognito.Mfa.OFF,
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is off until the console can answer an MFA challenge; threat protection (compromised ' +
        'credentials, adaptive authentication) is enforced instead.',
    });
    this.client = this.userPool.addClient('ConsoleClient', {
      userPoolClientName: 'mailvet-console',
      // A browser app keeps no secret.
      generateSecret: false,
      authFlows: { userSrp: true, userPassword: true },
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      enableTokenRevocation: true,
      preventUserExistenceErrors: true,
    });
  }
}

/** The token issuer of a pool in this region (what `iss` says in its tokens). */
const issuerOf = (userPoolId: string): string =>
  `https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}/${userPoolId}`;

/** The settings every function gets: a token of this pool's console client, and no other, is accepted. */
export function peopleEnvironment(refs: PeopleRefs): Record<string, string> {
  return {
    PEOPLE_USER_POOL_ID: refs.userPoolId,
    PEOPLE_CLIENT_ID: refs.clientId,
    PEOPLE_TOKEN_ISSUER: issuerOf(refs.userPoolId),
  };
}

/** Each function of peopleDirectoryAccess gets exactly its Admin* actions on the one pool. */
export function grantPeopleDirectory(
  refs: PeopleRefs,
  functions: ReadonlyMap<string, MailvetFunction>,
): void {
  for (const [name, actions] of Object.entries(peopleDirectoryAccess)) {
    const fn = functions.get(name);
    if (!fn) throw new Error(`No function named ${name} in functions/wiring.ts`);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [refs.userPoolArn] }));
  }
}
