// A stored mailbox's IMAP or SMTP login: its server settings, the address its host resolves to now
// (checked again on every run), and the password opened from its sealed credentials.
import type { MailboxCredentialsItem } from '../../store/entities/mailboxes';
import type { MailboxPasswords } from '../../store/mailbox-connections';
import { resolveServerHost } from './hosts';
import type { ServerLogin } from './ports';

export async function loginOf(
  mailbox: MailboxCredentialsItem,
  passwords: MailboxPasswords,
  protocol: 'IMAP' | 'SMTP',
): Promise<ServerLogin> {
  const server = protocol === 'IMAP' ? mailbox.imap : mailbox.smtp;
  const address = await resolveServerHost(protocol, server.host, server.port);
  return { ...server, address, password: protocol === 'IMAP' ? passwords.imap : passwords.smtp };
}
