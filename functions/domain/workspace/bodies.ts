// Request bodies of the workspace writes (docs/api.md), parsed with zod; a bad body is a 400.
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { userRoles } from './model';

export const activationBody = z.strictObject({ activated: z.boolean() });

export const activationRejectedMessage = 'Body must be exactly {"activated": true} or {"activated": false}';
const bodyNotObjectMessage = 'Body must be a JSON object';

export function parseActivationBody(body: unknown): boolean {
  const parsed = activationBody.safeParse(body);
  if (!parsed.success) throw new ValidationError(activationRejectedMessage);
  return parsed.data.activated;
}

const inviteEmailRequired = 'email is required';
const inviteEmailInvalid = 'email must be a valid email address';
const inviteNameNotString = 'name must be a string';
const inviteNameTooLong = 'name must be 200 characters or less';
const inviteRoleInvalid = 'role must be member or admin';

/** Every 400 text of the invite body. */
export const inviteBodyErrors = [
  bodyNotObjectMessage,
  inviteEmailRequired,
  inviteEmailInvalid,
  inviteNameNotString,
  inviteNameTooLong,
  inviteRoleInvalid,
];

export const inviteBody = z.object({
  email: z
    .email({
      error: (issue) => (issue.input === undefined ? inviteEmailRequired : inviteEmailInvalid),
    })
    // RFC 5321: at most 254 characters, 64 before the @ (longer ones could not receive the invite).
    .max(254, { error: inviteEmailInvalid })
    .refine((email) => email.lastIndexOf('@') <= 64, { error: inviteEmailInvalid }),
  name: z.string({ error: inviteNameNotString }).max(200, { error: inviteNameTooLong }).optional(),
  role: z.enum(userRoles, { error: inviteRoleInvalid }).default('member'),
});
export type InviteBody = z.infer<typeof inviteBody>;

export function parseInviteBody(body: unknown): InviteBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError(bodyNotObjectMessage);
  const parsed = inviteBody.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid body');
  return parsed.data;
}

/** The `{id}` of a path: a UUID, any case. */
export const uuidParam = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
  .describe('UUID');

/** A path id that cannot be a UUID cannot name anything: 404 like any unknown id. */
export function isUuid(value: string | undefined): value is string {
  return uuidParam.safeParse(value).success;
}
