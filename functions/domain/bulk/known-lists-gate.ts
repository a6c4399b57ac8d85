// Known-address lists for bulk chunks: the per-address lookup (BatchGet of 4 keys per address) costs
// more than everything else a chunk does, so it runs only when one of the lists that apply to the
// company actually holds an address. Whether a list is empty is one Query on its index, cached briefly.
import { systemClock, type Clock } from '../../clock';
import { GLOBAL_SCOPE } from '../../store/keys';
import { dynamoKnownLists, knownListHoldsAny } from '../../store/known-lists';
import { NO_KNOWN_LISTS, type KnownAddressLists } from '../validation';

/** How long "this company's lists are empty" is trusted: a list imported meanwhile applies after this. */
const emptinessTtlMs = 30_000;

const checked = new Map<string, { nonEmpty: boolean; at: number }>();

async function scopeNonEmpty(scope: string, now: number): Promise<boolean> {
  const cached = checked.get(scope);
  if (cached && now - cached.at < emptinessTtlMs) return cached.nonEmpty;
  const nonEmpty = await knownListHoldsAny(scope);
  checked.set(scope, { nonEmpty, at: now });
  return nonEmpty;
}

/** The lists to consult for a company's chunk: the real ones, or none when every applicable list is empty. */
async function knownListsFor(companyId: string, clock: Clock = systemClock): Promise<KnownAddressLists> {
  const now = clock().getTime();
  const [global, own] = await Promise.all([scopeNonEmpty(GLOBAL_SCOPE, now), scopeNonEmpty(companyId, now)]);
  if (!global && !own) return NO_KNOWN_LISTS;
  return dynamoKnownLists();
}

/** KnownAddressLists that skips the per-address lookups while the applicable lists are empty. */
export const gatedKnownLists: KnownAddressLists = {
  isKnownDead: async (companyId, email) =>
    (await knownListsFor(companyId ?? GLOBAL_SCOPE)).isKnownDead(companyId, email),
  isKnownComplainer: async (companyId, email) =>
    (await knownListsFor(companyId ?? GLOBAL_SCOPE)).isKnownComplainer(companyId, email),
  lookup: async (companyId, emails) =>
    (await knownListsFor(companyId ?? GLOBAL_SCOPE)).lookup(companyId, emails),
};
