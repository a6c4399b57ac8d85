// Settings kept in a secret store rather than in the function's environment: read once per process,
// before the first invocation's handler runs, and applied to settings() (never to process.env). Today
// that is the SOCKS pool of the mailbox probes, whose URLs carry proxy credentials.
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { readSecretText } from '../clients/secrets';
import { applySecretSettings, settings } from '../settings';

let loaded: Promise<void> | undefined;

/** Reads SMTP_SOCKS_PROXY from SMTP_SOCKS_PROXY_SECRET, if set; a failed read is tried again next time. */
export function loadSecretSettings(
  read: (reference: string) => Promise<string> = readSecretText,
): Promise<void> {
  loaded ??= (async () => {
    const reference = settings().SMTP_SOCKS_PROXY_SECRET;
    if (reference === undefined) return;
    // One URL per line or comma-separated: the same list SMTP_SOCKS_PROXY takes.
    const pool = (await read(reference))
      .split(/[\n,]/)
      .map((url) => url.trim())
      .filter((url) => url !== '')
      .join(',');
    applySecretSettings({ SMTP_SOCKS_PROXY: pool });
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
