// A resolver with a recursive resolver's patience. node:dns (c-ares 1.34 in Node 20) times each try out
// after a time it derives from the server's recent latency, not after the `timeout` it was given: once a
// local recursive resolver has answered a few cached names in a millisecond, every try ends after about
// a second whatever the setting says, and `tries: 2` made every timed-out lookup end at 2.0 s. A zone
// whose name server answers in a second, or a recursive resolver that is still working on a cold name
// (Unbound needs a few seconds when a zone's first name server is dead), never got its answer.
//
// So each question is asked again, one try at a time, until it is answered or DNS_TIMEOUT_MS (the
// question's own budget) has passed: a recursive resolver keeps working on a name between our tries and
// answers the next try as soon as it has the answer. The budget is a timer of its own, so the last try
// never runs past it.
import { Resolver } from 'node:dns/promises';
import type { DnsClient } from './dns-lookup';
import type { MxRecord } from './types';

/** The shortest try: c-ares's own floor for a fast server is about this. */
const MIN_TRY_MS = 1000;
/** The longest try: a server that has not answered yet is asked again after this at most. */
const MAX_TRY_MS = 2000;

/** How long one try waits before it is asked again: a third of the budget, within 1-2 s. */
export function tryTimeoutMs(budgetMs: number): number {
  return Math.min(budgetMs, Math.max(MIN_TRY_MS, Math.min(MAX_TRY_MS, Math.ceil(budgetMs / 3))));
}

function timeoutError(): Error {
  return Object.assign(new Error('DNS query timed out'), { code: 'ETIMEOUT' });
}

function isTimeout(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'ETIMEOUT';
}

/**
 * `ask` until it answers or fails otherwise than by a timeout, at most `attempts` times and within
 * `budgetMs` (then ETIMEOUT, as a resolver's own timeout reads).
 */
export async function patiently<T>(ask: () => Promise<T>, budgetMs: number, attempts: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const budget = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      reject(timeoutError());
    }, budgetMs);
  });
  // the race's loser must not surface as an unhandled rejection
  budget.catch(() => undefined);
  try {
    for (let attempt = 1; ; attempt++) {
      const answer = ask();
      try {
        return await Promise.race([answer, budget]);
      } catch (e) {
        // a try still running when the budget ends is left to time out on its own
        answer.catch(() => undefined);
        if (expired || !isTimeout(e) || attempt >= attempts) throw e;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A DnsClient over node:dns whose every question waits up to `budgetMs`, asked again after each
 * try's timeout (at most `attempts` tries; default: as many as fit).
 */
export function createPatientResolver(
  servers: readonly string[],
  budgetMs: number,
  attempts = Number.POSITIVE_INFINITY,
): DnsClient {
  const tryMs = attempts <= 1 ? budgetMs : tryTimeoutMs(budgetMs);
  const resolver = new Resolver({ timeout: tryMs, tries: 1 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return {
    resolveMx: (domain): Promise<MxRecord[]> =>
      patiently(() => resolver.resolveMx(domain), budgetMs, attempts),
    resolve4: (host): Promise<string[]> => patiently(() => resolver.resolve4(host), budgetMs, attempts),
    resolve6: (host): Promise<string[]> => patiently(() => resolver.resolve6(host), budgetMs, attempts),
  };
}
