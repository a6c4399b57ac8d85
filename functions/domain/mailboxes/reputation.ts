// A mailbox's measured reputation (decisions "Connected mailboxes"): the share of its tests found in
// the inbox among its tests found (inbox or spam), pooled over the 7 days ending the day, from the
// third day after the connection; null before, or with no test found.
import { addDays, utcDate } from '../workspace/dates';
import type { Placement } from '../../store/entities/mailboxes';

/** Days over which tests are pooled (the day and the six before it). */
export const poolDays = 7;
/** The first day with a value is the connection date plus this. */
export const firstValueAfterDays = 3;

export function firstReputationDay(connectedAt: string): string {
  return addDays(utcDate(new Date(connectedAt)), firstValueAfterDays);
}

export function reputationOn(
  day: string,
  connectedAt: string,
  tests: readonly { day: string; placement: Placement }[],
): number | null {
  if (day < firstReputationDay(connectedAt)) return null;
  const from = addDays(day, -(poolDays - 1));
  let inbox = 0;
  let found = 0;
  for (const test of tests) {
    if (test.day < from || test.day > day) continue;
    if (test.placement === 'inbox') inbox++;
    if (test.placement === 'inbox' || test.placement === 'spam') found++;
  }
  return found === 0 ? null : Math.round((100 * inbox) / found);
}
