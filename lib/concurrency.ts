// Reserved concurrency for the API functions (context `apiReservedConcurrency`, per function): the queue
// consumers (up to the sum of their maxConcurrency at once) can then never take the executions the API
// needs. A reservation is also a ceiling, so the sync validation route, which holds a request for up to
// its sync budget, gets a larger share.
import { Annotations, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as wiring from '../functions/wiring';
import type { MailvetFunction } from './mailvet-function';

/**
 * Per API function. Small enough for a young account: 44 functions reserve 98 executions, which a
 * concurrency quota of 198 or more allows (Lambda keeps 100 unreserved); 0 reserves nothing. (Three
 * each fitted 24 functions; the people, Safety Net and mailbox routes made it two.)
 */
export const defaultApiReservedConcurrency = 2;
/** Multiples of the per-function reservation: the sync route keeps the 12 it had at three each. */
const weights: Record<string, number> = { validateEmail: 6 };

/** The functions behind API routes, including the not-found default route. */
export function apiFunctionNames(): string[] {
  return [...new Set([...wiring.routes.map((r) => r.function), wiring.defaultRouteFunction])];
}

/** Sets ReservedConcurrentExecutions on every API function; returns the total reserved. */
export function reserveApiConcurrency(
  functions: ReadonlyMap<string, MailvetFunction>,
  perFunction: number = defaultApiReservedConcurrency,
): number {
  if (perFunction === 0) return 0;
  let total = 0;
  for (const name of apiFunctionNames()) {
    const fn = functions.get(name);
    if (!fn) throw new Error(`No function named ${name} in functions/wiring.ts`);
    const reserved = perFunction * (weights[name] ?? 1);
    (fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions = reserved;
    total += reserved;
  }
  const [any] = functions.values();
  if (any)
    Annotations.of(Stack.of(any)).addInfo(
      `The API functions reserve ${total} concurrent executions: the account's Lambda concurrency quota ` +
        `must be at least ${total + 100} (aws lambda get-account-settings). -c apiReservedConcurrency=0 reserves none.`,
    );
  return total;
}
