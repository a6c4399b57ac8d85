// The Cognito user pool's admin API (cognito-idp): one client per process, built on first use. The
// functions that call it get exactly the Admin* actions they use on the one pool (lib/people.ts).
import './sdk-notice';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { settings } from '../settings';
import { traced } from './tracer';

let client: CognitoIdentityProviderClient | undefined;

export function cognito(): CognitoIdentityProviderClient {
  if (!client) {
    const s = settings();
    client = traced(
      new CognitoIdentityProviderClient({
        region: s.AWS_REGION,
        endpoint: s.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER,
        maxAttempts: 3,
      }),
    );
  }
  return client;
}

export function resetCognito(): void {
  client?.destroy();
  client = undefined;
}
