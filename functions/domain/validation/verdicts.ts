// One frozen Verdict per (reason, subStatus): the hot path returns these shared objects and never
// allocates. The reason -> status mapping is STATUS_OF_REASON (types.ts).
import { STATUS_OF_REASON, type Reason, type Verdict } from './types';

const interned = new Map<string, Verdict>();

/** The shared verdict for a reason and detail; subStatus strings come from small fixed sets. */
export function verdict(reason: Reason, subStatus: string | null = null): Verdict {
  const key = subStatus === null ? reason : `${reason}\u0000${subStatus}`;
  let v = interned.get(key);
  if (!v) {
    v = Object.freeze({ status: STATUS_OF_REASON[reason], reason, subStatus });
    interned.set(key, v);
  }
  return v;
}
