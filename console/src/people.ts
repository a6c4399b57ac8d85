// Signing a person in: the user pool's InitiateAuth (USER_PASSWORD_AUTH) straight from the browser to
// the pool's endpoint (Cognito in AWS, the emulator locally, both named in config.json), and the calls
// of the pages a link opens (accepting an invite), which need no key.
import type { PeopleConfig } from './config';

export class SignInError extends Error {}

/** The pool's access token and when it expires (epoch ms), or SignInError with words for a person. */
export async function signInWithPassword(
  people: PeopleConfig,
  email: string,
  password: string,
): Promise<{ accessToken: string; expiresAt: number }> {
  let response: Response;
  try {
    response = await fetch(people.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
      },
      body: JSON.stringify({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: people.clientId,
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    });
  } catch {
    throw new SignInError('The sign-in service cannot be reached. Check your connection and try again.');
  }
  const body = (await response.json().catch(() => ({}))) as {
    AuthenticationResult?: { AccessToken?: string; ExpiresIn?: number };
    __type?: string;
  };
  const token = body.AuthenticationResult?.AccessToken;
  if (response.ok && token)
    return {
      accessToken: token,
      expiresAt: Date.now() + (body.AuthenticationResult?.ExpiresIn ?? 3600) * 1000,
    };
  if (response.status === 400 && /TooManyRequests|LimitExceeded/.test(body.__type ?? ''))
    throw new SignInError('Too many attempts. Wait a few minutes, then try again.');
  if (response.status === 400) throw new SignInError('That email and password do not match. Try again.');
  throw new SignInError('Signing in failed. Try again in a moment.');
}

export interface AcceptedUser {
  email: string;
  id: string;
  name: string;
  role: 'admin' | 'member';
}

/** POST /v1/invites/accept; the API's error text (410 used or expired link, 400 password policy). */
export async function acceptInvite(
  apiUrl: string,
  body: { token: string; password: string; name?: string },
): Promise<AcceptedUser> {
  const base = apiUrl || window.location.origin;
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/+$/, '')}/v1/invites/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new AcceptError(0, 'The API cannot be reached. Check your connection and try again.');
  }
  const answer = (await response.json().catch(() => ({}))) as AcceptedUser & { error?: string };
  if (!response.ok) throw new AcceptError(response.status, answer.error ?? `HTTP ${response.status}`);
  return answer;
}

export class AcceptError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
