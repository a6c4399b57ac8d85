// A forgotten password (POST /v1/password-resets, then .../confirm; no API key).
// Primary course of a request: find the person of the email in the user pool and in the table; if there
// is one, store a one-time token's SHA-256 (it lasts PASSWORD_RESET_MINUTES) and email the link to the
// console's page through sendEmail (kind password_reset; the link rides the queue message only). The
// answer is the same whether or not the address belongs to anyone, so it tells nobody who has an account.
// Confirming: check the new password against the policy, use the token once, set the password in the pool.
import { z } from 'zod';
import { GoneError, ValidationError } from '../../errors';
import type { Logger } from '../../log';
import { settings } from '../../settings';
import { putPasswordReset, readPerson, takePasswordReset } from '../../store/people';
import { findPersonSub, setPersonPassword } from '../../store/people-directory';
import { oneTimeLinkPlaceholder, sendEmail } from '../mail/send-email';
import { hashOneTimeToken, newOneTimeToken, passwordResetUrl } from './links';
import { passwordRefusal } from './password-policy';

const resetRequestedMessage =
  'If this address belongs to a mailvet account, an email with a link to choose a new password is on its way';
export const resetGoneMessage = 'This password reset link is no longer valid';
const passwordChangedMessage = 'Your password is changed: sign in with it';
export const resetRequestBodyMessage = 'Invalid request body: email is required';
export const resetConfirmBodyMessage = 'Invalid request body: token and password are required strings';

export const resetRequestBodySchema = z.object({ email: z.string().trim().min(3).max(254) });
export const resetConfirmBodySchema = z.object({
  token: z.string().min(1).max(512),
  password: z.string().min(1).max(256),
});
export const resetAnswerSchema = z.object({ message: z.string() });

export function parseResetRequestBody(body: unknown): z.infer<typeof resetRequestBodySchema> {
  const parsed = resetRequestBodySchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(resetRequestBodyMessage);
  return parsed.data;
}

export function parseResetConfirmBody(body: unknown): z.infer<typeof resetConfirmBodySchema> {
  const parsed = resetConfirmBodySchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(resetConfirmBodyMessage);
  return parsed.data;
}

/** The reset email's text: the link's line is the placeholder the delivery fills in. */
function resetEmailText(minutes: number): string {
  return [
    'Hello,',
    '',
    'Someone asked to choose a new password for your mailvet account. To do so, open this page',
    `(the link works once, for ${minutes} minutes):`,
    oneTimeLinkPlaceholder,
    '',
    'If it was not you, ignore this email: your password stays as it is.',
    '',
  ].join('\n');
}

export async function requestPasswordReset(
  input: z.infer<typeof resetRequestBodySchema>,
  now: Date,
  log: Logger,
): Promise<z.infer<typeof resetAnswerSchema>> {
  const email = input.email.toLowerCase();
  const { CONSOLE_URL, PASSWORD_RESET_MINUTES } = settings();
  const sub = email.includes('@') ? await findPersonSub(email) : undefined;
  const person = sub === undefined ? undefined : await readPerson(sub);
  if (person && CONSOLE_URL) {
    const token = newOneTimeToken();
    await putPasswordReset(hashOneTimeToken(token), {
      sub: person.sub,
      companyId: person.companyId,
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_MINUTES * 60_000),
    });
    await sendEmail(
      {
        companyId: person.companyId,
        kind: 'password_reset',
        to: person.email,
        subject: 'Choose a new mailvet password',
        text: resetEmailText(PASSWORD_RESET_MINUTES),
        link: passwordResetUrl(CONSOLE_URL, token),
      },
      () => now,
    );
    log.info('password reset emailed', { personId: person.sub });
  } else log.info('password reset asked for an address without a person');
  return { message: resetRequestedMessage };
}

export async function confirmPasswordReset(
  input: z.infer<typeof resetConfirmBodySchema>,
  now: Date,
  log: Logger,
): Promise<z.infer<typeof resetAnswerSchema>> {
  // The policy first: a refused password leaves the link usable.
  const refusal = passwordRefusal(input.password);
  if (refusal) throw new ValidationError(refusal);
  const reset = await takePasswordReset(hashOneTimeToken(input.token), now);
  const person = reset && (await readPerson(reset.sub));
  if (!person) throw new GoneError(resetGoneMessage);
  await setPersonPassword(person.email, input.password);
  log.info('password reset', { personId: person.sub });
  return { message: passwordChangedMessage };
}
