// Test addresses at the reserved domain mailvet.test (docs/api.md, "Testing an integration"): each
// always gets the same verdict, on every path (single, batch, async, bulk). The engine answers them
// before any DNS or SMTP, and usage never counts them.
import { extractAddress } from './extract-address';
import type { Reason, Verdict } from './types';
import { verdict } from './verdicts';

/** `.test` is reserved (RFC 2606): no real mailbox can ever live here. */
export const TEST_DOMAIN = 'mailvet.test';

/** The local part (lower case, without `+tag`) -> its fixed reason; the status follows from it. */
const TEST_REASONS: Readonly<Record<string, Reason>> = {
  safe: 'accepted',
  'catch-all': 'catch_all',
  bounce: 'mailbox_not_found',
  disabled: 'mailbox_disabled',
  dead: 'known_dead',
  abuse: 'role_abuse',
  full: 'mailbox_full',
  greylisted: 'greylisted',
  slow: 'accepted',
};

/** Any other local part at the test domain. */
const UNKNOWN_TEST_REASON: Reason = 'mailbox_not_found';

export interface TestAddress {
  verdict: Verdict;
  /** `slow@`: answered only a few seconds after the sync budget (the 202-then-poll path). */
  slow: boolean;
}

/** Whether the domain part (as written, any case) is the test domain. */
export function isTestDomain(domain: string): boolean {
  return domain.toLowerCase() === TEST_DOMAIN;
}

/** The behaviour of an extracted address at the test domain; undefined for any other address. */
export function testAddressOf(address: string): TestAddress | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0 || !isTestDomain(address.slice(at + 1))) return undefined;
  const local = address.slice(0, at).toLowerCase();
  const plus = local.indexOf('+');
  const name = plus < 0 ? local : local.slice(0, plus);
  const reason = Object.hasOwn(TEST_REASONS, name) ? TEST_REASONS[name]! : UNKNOWN_TEST_REASON;
  return { verdict: verdict(reason), slow: name === 'slow' };
}

/** Whether a request's address (as submitted: trimmed and extracted like the engine does) is a test address. */
export function isTestAddress(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  const address = extractAddress(raw);
  return address !== null && testAddressOf(address.trim()) !== undefined;
}
