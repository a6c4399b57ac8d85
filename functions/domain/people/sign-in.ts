// Who a person's token stands for: the token's `sub` names a person item, which names one user of
// one company. The principal is the same as an API key's of that user, so permissions, the company
// boundary and usage counting do not depend on how a request authenticated.
import { InvalidTokenError } from '../../errors';
import { readPerson } from '../../store/people';
import { systemClock, type Clock } from '../../clock';
import type { Principal } from '../accounts/accounts';

const cache = new Map<string, { principal: Principal | undefined; until: number }>();
const cacheLimit = 10_000;

/**
 * The principal of a verified token's `sub`; 401 when the pool knows a person this table does not
 * (another deployment's, or one whose acceptance never committed). `cacheSeconds` as for API keys.
 */
export async function authenticatePerson(
  sub: string,
  cacheSeconds = 0,
  clock: Clock = systemClock,
  read: typeof readPerson = readPerson,
): Promise<Principal> {
  const now = clock().getTime();
  const cached = cacheSeconds > 0 ? cache.get(sub) : undefined;
  let principal: Principal | undefined;
  if (cached && cached.until > now) principal = cached.principal;
  else {
    const person = await read(sub);
    principal = person && {
      companyId: person.companyId,
      userId: person.userId,
      userEmail: person.email,
      keyId: '',
      personId: person.sub,
    };
    if (cacheSeconds > 0) {
      if (cache.size >= cacheLimit) cache.clear();
      cache.set(sub, { principal, until: now + cacheSeconds * 1000 });
    }
  }
  if (!principal) throw new InvalidTokenError();
  return principal;
}
