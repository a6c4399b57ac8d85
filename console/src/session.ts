// What the console signs in with lives in sessionStorage only: gone when the tab closes, never in a
// cookie or a URL, and sent only to the API (the presigned addresses get neither). Either an API key or
// a person's access token from the user pool (with its expiry, so an expired one asks for a sign-in).
export type Credentials = { apiKey: string } | { accessToken: string; email: string; expiresAt: number };

const keyStorage = 'mailvet.apiKey';
const personStorage = 'mailvet.person';

export function savedCredentials(): Credentials | undefined {
  const apiKey = sessionStorage.getItem(keyStorage);
  if (apiKey) return { apiKey };
  const raw = sessionStorage.getItem(personStorage);
  if (!raw) return undefined;
  try {
    const person = JSON.parse(raw) as { accessToken: string; email: string; expiresAt: number };
    return person.expiresAt > Date.now() ? person : undefined;
  } catch {
    return undefined;
  }
}

export function saveCredentials(credentials: Credentials): void {
  forgetCredentials();
  if ('apiKey' in credentials) sessionStorage.setItem(keyStorage, credentials.apiKey);
  else sessionStorage.setItem(personStorage, JSON.stringify(credentials));
}

export function forgetCredentials(): void {
  sessionStorage.removeItem(keyStorage);
  sessionStorage.removeItem(personStorage);
}
