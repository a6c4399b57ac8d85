// Settings kept in a secret store rather than in the function's environment: read once per process,
// before the first invocation's handler runs, and applied to settings() (never to process.env). Today
// that is the SOCKS pool of the mailbox probes, whose URLs carry proxy credentials, and the OAuth client
// credentials of the sales platforms (one JSON secret, PLATFORM_CREDENTIALS_SECRET).
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { readSecretText } from '../clients/secrets';
import {
  applySecretSettings,
  platformCredentialNames,
  settings,
  type PlatformCredentialName,
  type SecretSettingName,
} from '../settings';

let loaded: Promise<void> | undefined;

/**
 * The credentials in the JSON text of PLATFORM_CREDENTIALS_SECRET: each a string; an empty one is left
 * out (the environment's value, or none, stands). Throws naming the reference and the key, never a value
 * (JSON.parse's own message would quote the text).
 */
export function platformCredentialSettings(
  text: string,
  reference: string,
): Partial<Record<PlatformCredentialName, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${reference} is not JSON (an object of ${platformCredentialNames.join(', ')})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${reference} is not a JSON object of ${platformCredentialNames.join(', ')}`);
  const known = new Set<string>(platformCredentialNames);
  const values: Partial<Record<PlatformCredentialName, string>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!known.has(key))
      throw new Error(
        `${reference} has the key ${key}, which is none of ${platformCredentialNames.join(', ')}`,
      );
    if (typeof value !== 'string') throw new Error(`${reference}: ${key} is not a string`);
    if (value.trim() !== '') values[key as PlatformCredentialName] = value.trim();
  }
  return values;
}

/**
 * Reads SMTP_SOCKS_PROXY from SMTP_SOCKS_PROXY_SECRET and the platform credentials from
 * PLATFORM_CREDENTIALS_SECRET, where set; a failed read is tried again next time.
 */
export function loadSecretSettings(
  read: (reference: string) => Promise<string> = readSecretText,
  apply: (values: Partial<Record<SecretSettingName, string>>) => void = applySecretSettings,
): Promise<void> {
  loaded ??= (async () => {
    const { SMTP_SOCKS_PROXY_SECRET: socks, PLATFORM_CREDENTIALS_SECRET: platforms } = settings();
    if (socks === undefined && platforms === undefined) return;
    const values: Partial<Record<SecretSettingName, string>> = {};
    const [socksText, platformText] = await Promise.all([
      socks === undefined ? undefined : read(socks),
      platforms === undefined ? undefined : read(platforms),
    ]);
    // One URL per line or comma-separated: the same list SMTP_SOCKS_PROXY takes.
    if (socksText !== undefined)
      values.SMTP_SOCKS_PROXY = socksText
        .split(/[\n,]/)
        .map((url) => url.trim())
        .filter((url) => url !== '')
        .join(',');
    if (platformText !== undefined && platforms !== undefined)
      Object.assign(values, platformCredentialSettings(platformText, platforms));
    apply(values);
  })().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

/** Forget what was read (tests). */
export function resetSecretSettings(): void {
  loaded = undefined;
  applySecretSettings({});
}

/** Runs first in a handler's middy chain: the handler never sees settings without their secrets. */
export function secretSettings<E, R, C extends Context = Context>(): MiddlewareObj<E, R, Error, C> {
  return { before: () => loadSecretSettings() };
}
