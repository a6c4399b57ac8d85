// The API key lives in sessionStorage only: gone when the tab closes, never in a cookie or a URL, and
// sent only to the API (the presigned addresses get no key).
const storageKey = 'mailvet.apiKey';

export function savedKey(): string | undefined {
  return sessionStorage.getItem(storageKey) ?? undefined;
}

export function saveKey(key: string): void {
  sessionStorage.setItem(storageKey, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(storageKey);
}
