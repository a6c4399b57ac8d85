// People of the user pool and their one-time password-reset links. Keys: ../keys.ts (personKey,
// passwordResetKey); an invite's link lives on its user item (inviteTokenHash, inviteTokenIndex).
import { number, string } from 'dynamodb-toolbox';
import { storedEntity, type ItemOf } from './declare';

/** PERSON#<sub> / PERSON: the user (company and email) a person's token stands for. */
export const personEntity = storedEntity('person', {
  type: string().const('person'),
  sub: string(),
  companyId: string(),
  email: string(),
  userId: string(),
  createdAt: string(),
});

/** PWRESET#<sha256 of the token> / PWRESET: a password-reset link, deleted when used; ttl at expiry. */
export const passwordResetEntity = storedEntity('passwordReset', {
  type: string().const('passwordReset'),
  sub: string(),
  companyId: string(),
  expiresAt: string(),
  ttl: number(),
});

export type PersonItem = ItemOf<typeof personEntity>;
export type PasswordResetItem = ItemOf<typeof passwordResetEntity>;
