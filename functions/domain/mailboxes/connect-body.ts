// The body of POST /v1/connected-mailboxes (decisions "Connected mailboxes"), parsed with zod; a bad
// body is a 400 naming the field. Passwords are never echoed in an error.
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { serverSecurities } from '../../store/entities/mailboxes';

const bodyNotObjectMessage = 'Body must be a JSON object';
const emailMessage = 'email must be a valid email address';

function serverSchema(name: 'imap' | 'smtp') {
  return z.object(
    {
      host: z
        .string({ error: `${name}.host is required` })
        .trim()
        .min(1, { error: `${name}.host is required` })
        .max(253, { error: `${name}.host must be a host name or an address` })
        .regex(/^[A-Za-z0-9.:[\]-]+$/, { error: `${name}.host must be a host name or an address` })
        .transform((host) => host.replace(/^\[(.*)\]$/, '$1').toLowerCase()),
      port: z
        .number({ error: `${name}.port must be a port number (1-65535)` })
        .int({ error: `${name}.port must be a port number (1-65535)` })
        .min(1, { error: `${name}.port must be a port number (1-65535)` })
        .max(65535, { error: `${name}.port must be a port number (1-65535)` }),
      security: z.enum(serverSecurities, { error: `${name}.security must be tls or starttls` }),
      username: z
        .string({ error: `${name}.username is required` })
        .min(1, { error: `${name}.username is required` })
        .max(320, { error: `${name}.username must be 320 characters or less` }),
      password: z
        .string({ error: `${name}.password is required` })
        .min(1, { error: `${name}.password is required` })
        .max(1024, { error: `${name}.password must be 1024 characters or less` }),
    },
    { error: `${name} must be an object with host, port, security, username and password` },
  );
}

export const connectMailboxBody = z.object({
  email: z
    .email({ error: (issue) => (issue.input === undefined ? 'email is required' : emailMessage) })
    .max(254, { error: emailMessage })
    .transform((email) => email.toLowerCase()),
  imap: serverSchema('imap'),
  smtp: serverSchema('smtp'),
});
export type ConnectMailboxBody = z.infer<typeof connectMailboxBody>;

export function parseConnectMailboxBody(body: unknown): ConnectMailboxBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError(bodyNotObjectMessage);
  const parsed = connectMailboxBody.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues[0]?.message ?? 'Invalid body');
  return parsed.data;
}

/** The 400 texts of the connect body and of its checks, as the OpenAPI document lists them. */
export const connectMailboxErrors = [
  bodyNotObjectMessage,
  'email is required',
  emailMessage,
  'imap must be an object with host, port, security, username and password',
  'imap.host is required',
  'imap.port must be a port number (1-65535)',
  'imap.security must be tls or starttls',
  'imap.username is required',
  'imap.password is required',
  '(the same for smtp)',
  "IMAP login failed: <the server's words>",
  "SMTP login failed: <the server's words>",
  'IMAP server <host>:<port> unreachable: <why> (no such host, connection refused, timed out, TLS failed, not on a public network)',
  'SMTP server <host>:<port> unreachable: <why>',
];
