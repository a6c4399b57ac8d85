// Accepting an invite (POST /v1/invites/accept, no API key): the link's token names the invite.
// Primary course: hash the token and find the invite that holds that hash now (unknown, used,
// refreshed or expired: 410); check the password against the pool's policy (400 saying what it wants);
// claim the invite for this acceptance; create the person in the user pool with that password; then one
// workspace transaction turns the invite into an active user (a new UUID id, createdAt, the same role and
// seat), writes the person item that ties the pool's `sub` to that user, and updates the users view.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, GoneError, ValidationError } from '../../errors';
import type { Logger } from '../../log';
import { createPerson, findPersonSub, setPersonPassword } from '../../store/people-directory';
import {
  activatedUserWrite,
  claimInvite,
  findInviteByTokenHash,
  personWrite,
  readPerson,
  releaseInvite,
} from '../../store/people';
import { userBody, userBodySchema, userView, type UserRow } from '../workspace/model';
import { commitWithRetry } from '../workspace/transact';
import { loadUsers, mailboxesOfOwner } from '../workspace/users';
import { allRows, upsertRow, viewTransactItems } from '../workspace/views';
import { hashOneTimeToken } from './links';
import { passwordRefusal } from './password-policy';

/** The fixed 410 text (docs/api.md, "People and sign-in"). */
export const inviteGoneMessage = 'This invite link is no longer valid';
export const personElsewhereMessage = 'This email already signs in to a mailvet workspace';

export const acceptInviteBodySchema = z.object({
  token: z.string().min(1).max(512),
  password: z.string().min(1).max(256),
  name: z.string().trim().min(1).max(200).optional(),
});
export type AcceptInviteBody = z.infer<typeof acceptInviteBodySchema>;

export const acceptBodyMessage =
  'Invalid request body: token and password are required strings (name, if given, 1 to 200 characters)';

export function parseAcceptInviteBody(body: unknown): AcceptInviteBody {
  const parsed = acceptInviteBodySchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(acceptBodyMessage);
  return parsed.data;
}

export const acceptedUserSchema = userBodySchema;

/** How long one acceptance holds the invite (creating the person takes a second or two). */
const claimMs = 60_000;

export async function acceptInvite(input: AcceptInviteBody, now: Date, log: Logger) {
  const tokenHash = hashOneTimeToken(input.token);
  const invite = await findInviteByTokenHash(tokenHash);
  if (!invite || !invite.inviteExpiresAt || invite.inviteExpiresAt <= now.toISOString())
    throw new GoneError(inviteGoneMessage);
  const refusal = passwordRefusal(input.password);
  if (refusal) throw new ValidationError(refusal);
  const { companyId, email } = invite;
  if (!(await claimInvite(companyId, email, tokenHash, new Date(now.getTime() + claimMs), now)))
    throw new GoneError(inviteGoneMessage);
  try {
    const sub = await personFor(email, input.password);
    const userId = randomUUID();
    const createdAt = now.toISOString();
    const name = input.name ?? invite.name;
    const row = await commitWithRetry(companyId, now, async () => {
      const view = await loadUsers(companyId);
      const existing = allRows(view).find((r) => r.email === email);
      // Refreshed or accepted meanwhile: this link died while the person was being created.
      if (existing?.status !== 'invited') return { items: null, result: undefined };
      const active: UserRow = {
        email,
        id: userId,
        name,
        role: invite.role,
        status: 'active',
        createdAt,
        inviteExpiresAt: null,
        mailboxes: existing?.mailboxes ?? (await mailboxesOfOwner(companyId, email)),
      };
      const change = upsertRow(userView, view, active);
      return {
        result: active,
        items: [
          activatedUserWrite({ invite, tokenHash, userId, name, personSub: sub, createdAt }),
          personWrite({ sub, companyId, email, userId, createdAt }),
          ...viewTransactItems(companyId, userView, change),
        ],
      };
    });
    if (!row) throw new GoneError(inviteGoneMessage);
    log.info('invite accepted', { userId, role: row.role });
    return userBody(row);
  } catch (error) {
    await releaseInvite(companyId, email, tokenHash).catch(() => undefined);
    throw error;
  }
}

/**
 * The pool's person for this email with this password: a new one, or the one an earlier acceptance of
 * this invite created before its transaction failed (no person item points at it yet). A person who
 * already belongs to a workspace is refused (409): one person is one user of one company.
 */
async function personFor(email: string, password: string): Promise<string> {
  const created = await createPerson(email, password);
  if ('sub' in created) return created.sub;
  const sub = await findPersonSub(email);
  if (sub === undefined) throw new ConflictError(personElsewhereMessage);
  if (await readPerson(sub)) throw new ConflictError(personElsewhereMessage);
  await setPersonPassword(email, password);
  return sub;
}
