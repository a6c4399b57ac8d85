// Request bodies of the workspace writes (decisions.md), parsed with zod; a bad body is a 400.
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { userRoles } from './model';

export const activationBody = z.strictObject({ activated: z.boolean() });

export function parseActivationBody(body: unknown): boolean {
  const parsed = activationBody.safeParse(body);
  if (!parsed.success)
    throw new ValidationError('Body must be exactly {"activated": true} or {"activated": false}');
  return parsed.data.activated;
}

export const inviteBody = z.object({
  email: z
    .email({
      error: (issue) =>
        issue.input === undefined ? 'email is required' : 'email must be a valid email address',
    })
    // RFC 5321: at most 254 characters, 64 before the @ (longer ones could not receive the invite).
    .max(254, { error: 'email must be a valid email address' })
    .refine((email) => email.lastIndexOf('@') <= 64, { error: 'email must be a valid email address' }),
  name: z
    .string({ error: 'name must be a string' })
    .max(200, { error: 'name must be 200 characters or less' })
    .optional(),
  role: z.enum(userRoles, { error: 'role must be member or admin' }).default('member'),
});
export type InviteBody = z.infer<typeof inviteBody>;

export function parseInviteBody(body: unknown): InviteBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError('Body must be a JSON object');
  const parsed = inviteBody.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid body');
  return parsed.data;
}

/** A path id that cannot be a UUID cannot name anything: 404 like any unknown id. */
export function isUuid(value: string | undefined): value is string {
  return value !== undefined && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
