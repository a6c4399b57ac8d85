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

/** A POST to a route that needs no key; the API's error text as an AcceptError with its status. */
async function publicPost<T>(apiUrl: string, path: string, body: unknown): Promise<T> {
  const base = apiUrl || window.location.origin;
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new AcceptError(0, 'The API cannot be reached. Check your connection and try again.');
  }
  const answer = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new AcceptError(response.status, answer.error ?? `HTTP ${response.status}`);
  return answer;
}

/** POST /v1/invites/accept; the API's error text (410 used or expired link, 400 password policy). */
export const acceptInvite = (apiUrl: string, body: { token: string; password: string; name?: string }) =>
  publicPost<AcceptedUser>(apiUrl, '/v1/invites/accept', body);

/** POST /v1/password-resets: the same answer for any address. */
export const requestPasswordReset = (apiUrl: string, email: string) =>
  publicPost<{ message: string }>(apiUrl, '/v1/password-resets', { email });

/** POST /v1/password-resets/confirm (410 for a used or expired link, 400 for the policy). */
export const confirmPasswordReset = (apiUrl: string, token: string, password: string) =>
  publicPost<{ message: string }>(apiUrl, '/v1/password-resets/confirm', { token, password });

export class AcceptError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
