// What the people tests share: the invite link read from the local outbox (.eml files), and signing in
// to the user pool the way the console does (InitiateAuth, USER_PASSWORD_AUTH, over plain HTTP).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The .eml files in the outbox now (to wait for the next one). */
export function outboxFiles(outboxDir: string): Set<string> {
  return new Set(existsSync(outboxDir) ? readdirSync(outboxDir).filter((name) => name.endsWith('.eml')) : []);
}

/**
 * The token of the newest invite email to `to` in the outbox that is not in `seen`, waiting for it up
 * to `timeoutMs`.
 */
export async function inviteLinkToken(
  outboxDir: string,
  to: string,
  {
    seen = new Set<string>(),
    timeoutMs = 15_000,
    page = 'accept-invite',
  }: { seen?: Set<string>; timeoutMs?: number; page?: 'accept-invite' | 'reset-password' } = {},
): Promise<{ token: string; url: string; text: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(outboxDir)) {
      const emails = readdirSync(outboxDir)
        .filter((name) => name.endsWith('.eml') && !seen.has(name))
        .map((name) => path.join(outboxDir, name))
        .map((file) => ({ file, text: readFileSync(file, 'utf8'), at: statSync(file).mtimeMs }))
        .filter((email) => email.text.includes(`\r\nTo: ${to}\r\n`))
        .sort((a, b) => b.at - a.at);
      const match = emails[0] && new RegExp(`(http\\S+#/${page}/([A-Za-z0-9_-]+))`).exec(emails[0].text);
      if (match) return { url: match[1]!, token: match[2]!, text: emails[0]!.text };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no invite email to ${to} in ${outboxDir} within ${timeoutMs} ms`);
}

/** A person's access token from the pool (the console's sign-in call). */
export async function signInToPool(
  endpoint: string,
  clientId: string,
  email: string,
  password: string,
): Promise<string> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
    },
    body: JSON.stringify({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: clientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  });
  const body = (await response.json()) as {
    AuthenticationResult?: { AccessToken?: string };
    message?: string;
  };
  const token = body.AuthenticationResult?.AccessToken;
  if (!response.ok || !token) throw new Error(`sign-in refused (${response.status}): ${body.message ?? ''}`);
  return token;
}
