// The IMAP and SMTP submission adapters together, as the mailbox use cases take them
// (functions/domain/mailboxes/ports.ts MailServers).
import { readTaggedMessages, verifyImapLogin } from './imap';
import { sendMessages, verifySmtpLogin } from './smtp-submission';

export const mailServers = {
  verifyImap: verifyImapLogin,
  verifySmtp: verifySmtpLogin,
  readTagged: readTaggedMessages,
  send: sendMessages,
};
