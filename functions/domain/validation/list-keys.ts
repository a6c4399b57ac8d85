// Key design, validation block: the known-dead and known-complainer address lists.
//
// Entity              pk                        sk            gsi1pk / gsi1sk
// known address       LIST#<scope>#<email>      <KIND>        LIST#<scope>#<KIND> / <email>
//
// scope is "global" or a company id; KIND is DEAD or COMPLAINER; email is lower-cased.
// The email sits in the partition key (not in the sort key under one LIST#<scope>#<kind> partition)
// because the bulk path BatchGets thousands of addresses a second: one partition per list would be
// a hot partition. The index lists one list's addresses in order (exports, audits, deletes).
import type { ItemKey } from '../../store/keys';

export type ListKind = 'dead' | 'complainer';
export const LIST_KINDS: readonly ListKind[] = ['dead', 'complainer'];
export const GLOBAL_SCOPE = 'global';

const KIND_SK: Readonly<Record<ListKind, string>> = { dead: 'DEAD', complainer: 'COMPLAINER' };

/** Addresses are matched case-insensitively: providers treat local parts that way in practice. */
export const listEmail = (email: string): string => email.trim().toLowerCase();

export const knownAddressKey = (scope: string, kind: ListKind, email: string): ItemKey => ({
  pk: `LIST#${scope}#${listEmail(email)}`,
  sk: KIND_SK[kind],
});

export const knownAddressIndex = (scope: string, kind: ListKind, email: string) => ({
  gsi1pk: `LIST#${scope}#${KIND_SK[kind]}`,
  gsi1sk: listEmail(email),
});

export function kindOfSortKey(sk: string): ListKind | null {
  if (sk === KIND_SK.dead) return 'dead';
  if (sk === KIND_SK.complainer) return 'complainer';
  return null;
}
