// Where the outbox's emails go (invites and every other kind): Amazon SES from INVITE_FROM in AWS, an
// .eml file per email, `<kind>-<id>.eml`, under INVITE_OUTBOX_DIR on the local runtime (which has no
// SES), or nowhere (the email stays pending).
import { systemClock, type Clock } from '../clock';
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { ses } from '../clients/ses';
import { withoutEmails } from '../privacy';
import { settings, type Settings } from '../settings';

export interface MailMessage {
  /** Stable per email (the outbox id): a redelivery rewrites the same file. */
  id: string;
  /** The outbox kind (invite, password_reset, ...): the file name starts with it. */
  kind: string;
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  /** Says where mail goes, for the logs: never an address. */
  readonly kind: 'ses' | 'file';
  send(message: MailMessage): Promise<void>;
}

export function sesTransport(from: string): MailTransport {
  return {
    kind: 'ses',
    async send(message) {
      const command = new SendEmailCommand({
        FromEmailAddress: from,
        Destination: { ToAddresses: [message.to] },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
          },
        },
      });
      try {
        await ses().send(command);
      } catch (error) {
        // SES names the addresses in its refusals ("...failed the check: a@b"); the logs must not.
        const refused = new Error(withoutEmails(error instanceof Error ? error.message : String(error)));
        refused.name = error instanceof Error ? error.name : 'Error';
        throw refused;
      }
    },
  };
}

/** Header values come from our own templates and a validated address; line breaks are refused anyway. */
function header(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`${name} header with a line break`);
  return `${name}: ${value}`;
}

/** The message as an RFC 5322 file, as a mail client would open it. */
export function emlOf(message: MailMessage, from: string, date: Date): string {
  return [
    header('From', from),
    header('To', message.to),
    header('Subject', message.subject),
    header('Date', date.toUTCString()),
    header('Message-ID', `<${message.id}@mailvet.localhost>`),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    message.text.replace(/\r?\n/g, '\r\n'),
  ].join('\r\n');
}

export function fileTransport(dir: string, from: string, now: Clock = systemClock): MailTransport {
  return {
    kind: 'file',
    async send(message) {
      await mkdir(dir, { recursive: true });
      const safe = (part: string) => part.replace(/[^A-Za-z0-9-]/g, '_');
      const file = path.join(dir, `${safe(message.kind)}-${safe(message.id)}.eml`);
      // Whole or not at all: a crash mid-write leaves a temporary file, never half an email.
      const temporary = `${file}.${randomUUID()}.partial`;
      await writeFile(temporary, emlOf(message, from, now()));
      await rename(temporary, file);
    },
  };
}

/** The transport the settings give: the outbox directory first, then SES; null: none configured. */
export function configuredTransport(s: Settings = settings()): MailTransport | null {
  if (s.INVITE_OUTBOX_DIR)
    return fileTransport(s.INVITE_OUTBOX_DIR, s.INVITE_FROM ?? 'invites@mailvet.localhost');
  if (s.INVITE_FROM) return sesTransport(s.INVITE_FROM);
  return null;
}
