// POST /v1/connected-mailboxes: connect a mailbox by its IMAP and SMTP submission settings (admin); 201.
import { mailServers } from '../clients/mail-servers';
import { systemClock, type Clock } from '../clock';
import { connectMailbox, requireMailboxAdmin } from '../domain/mailboxes/connect';
import { parseConnectMailboxBody } from '../domain/mailboxes/connect-body';
import type { MailServers } from '../domain/mailboxes/ports';
import { apiHandler, type Route } from '../http/api-handler';

export const connectMailboxRoute =
  (servers: MailServers = mailServers, clock: Clock = systemClock): Route =>
  async (request) => {
    // Permission first (403), then the body (400): a caller without the right learns nothing else.
    const admin = await requireMailboxAdmin(request.principal);
    const body = parseConnectMailboxBody(request.body);
    return { statusCode: 201, body: await connectMailbox(admin, body, servers, clock(), request.log) };
  };

export const handler = apiHandler(connectMailboxRoute());
