// Mailbox providers whose MX hosts accept every recipient at RCPT time and bounce later: a 250 from them
// says nothing about the mailbox, so their addresses are not reported as verified.

/** Provider names from mx-provider.ts whose RCPT answers do not tell whether a mailbox exists. */
const ACCEPT_ALL_PROVIDERS: ReadonlySet<string> = new Set([
  // Yahoo Mail and AOL (mta*.am0.yahoodns.net): 250 for any recipient, bounce after DATA
  'yahoo',
  'aol',
]);

export function isAcceptAllProvider(mxProvider: string | null): boolean {
  return mxProvider !== null && ACCEPT_ALL_PROVIDERS.has(mxProvider);
}
