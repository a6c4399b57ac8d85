// What the mailbox use cases need of the outside, as plain types: the IMAP and SMTP submission
// adapters of functions/clients/ (imap.ts, smtp-submission.ts, gathered in mail-servers.ts) satisfy
// it; the handlers and the placement command hand them in. Their failures are MailboxLoginError and
// MailboxUnreachableError (functions/errors.ts).
import type { ServerSecurity } from '../../store/entities/mailboxes';

export interface ServerLogin {
  /** The host name the user gave: the certificate must name it. */
  host: string;
  /** The address it resolved to, checked against the private-network rule; connections go there. */
  address: string;
  port: number;
  security: ServerSecurity;
  username: string;
  password: string;
}

export interface FoundMessage {
  messageId: string;
  subject: string;
  folder: 'inbox' | 'spam';
}

export interface OutgoingMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  date: Date;
}

export interface MailServers {
  verifyImap(login: ServerLogin, timeoutMs: number): Promise<void>;
  verifySmtp(login: ServerLogin, timeoutMs: number): Promise<void>;
  /** Messages whose Message-ID contains `marker`, by folder; those in spam are moved to the inbox and marked read. */
  readTagged(login: ServerLogin, marker: string, timeoutMs: number): Promise<FoundMessage[]>;
  /** Sends one by one; the first failure stops the rest and is returned with the count sent. */
  send(
    login: ServerLogin,
    messages: OutgoingMessage[],
    timeoutMs: number,
  ): Promise<{ sent: number; failure?: Error }>;
}
