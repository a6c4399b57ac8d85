// One-time links: a random token for the email, only its SHA-256 for the table. An invite's link and a
// password-reset link are both built here; the console's pages read the token from the URL fragment,
// which browsers never send to a server (no access log or Referer carries it).
import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, base64url: unguessable, and safe in a URL. */
export function newOneTimeToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashOneTimeToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newInviteLink(): { token: string; tokenHash: string } {
  const token = newOneTimeToken();
  return { token, tokenHash: hashOneTimeToken(token) };
}

const withoutSlash = (url: string) => url.replace(/\/+$/, '');

/** The console's accept page for an invite's token. */
export function acceptInviteUrl(consoleUrl: string, token: string): string {
  return `${withoutSlash(consoleUrl)}/#/accept-invite/${token}`;
}

/** The console's page that sets a new password with a reset token. */
export function passwordResetUrl(consoleUrl: string, token: string): string {
  return `${withoutSlash(consoleUrl)}/#/reset-password/${token}`;
}
