// Connecting and disconnecting a mailbox (POST and DELETE /v1/connected-mailboxes; decisions
// "Connected mailboxes"). Primary course of a connect (an admin's key): refuse an address already
// connected (409); resolve both hosts (private ones only with ALLOW_PRIVATE_MX); log in to IMAP and
// to SMTP submission at once, and refuse with the server's own words when either fails (400, nothing
// stored); find the provider from the domain's MX, else from the server names; seal the passwords;
// write the mailbox, its credentials, its domain and its owner's list in one transaction; answer the
// list item (connected, no reputation yet).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  ForbiddenError,
  MailboxLoginError,
  MailboxUnreachableError,
  ValidationError,
  ConflictError,
} from '../../errors';
import type { Logger } from '../../log';
import { settings } from '../../settings';
import { readAccountUser } from '../../store/accounts';
import { credentialsPut, readConnectedMailboxByEmail } from '../../store/mailbox-connections';
import type { Principal } from '../accounts/accounts';
import { mxProviderOf } from '../validation/mx-provider';
import { historyFields, mailboxBodySchema, type MailboxRow, type Person } from '../workspace/model';
import type { ConnectMailboxBody } from './connect-body';
import { mxHostsOf, resolveServerHost } from './hosts';
import type { MailServers, ServerLogin } from './ports';
import { addConnectedMailbox, alreadyConnectedMessage, removeConnectedMailbox } from './workspace-sync';

export const adminOnlyMessage = 'Only an admin can connect or disconnect mailboxes';

/** A principal whose key's creator was seen to be an admin of the company. */
export interface MailboxAdmin {
  companyId: string;
  email: string;
  name: string;
}

/** The key's creator, who must be an admin of the company (403 otherwise; checked before the body). */
export async function requireMailboxAdmin(principal: Principal): Promise<MailboxAdmin> {
  const user = await readAccountUser(principal.companyId, principal.userEmail);
  if (!user || user.role !== 'admin' || !user.userId) throw new ForbiddenError(adminOnlyMessage);
  return { companyId: principal.companyId, email: user.email.toLowerCase(), name: user.name };
}

function personOf(user: { email: string; name: string }): Person {
  const name = user.name.trim();
  const space = name.indexOf(' ');
  return space < 0
    ? { email: user.email, firstName: name, lastName: '' }
    : { email: user.email, firstName: name.slice(0, space), lastName: name.slice(space + 1).trim() };
}

/** A login failure or an unreachable server is the user's to fix: a 400 saying which and why. */
function asBadRequest(error: unknown): unknown {
  return error instanceof MailboxLoginError || error instanceof MailboxUnreachableError
    ? new ValidationError(error.message)
    : error;
}

async function provider(domain: string, servers: string[]): Promise<string> {
  const byMx = mxProviderOf(await mxHostsOf(domain));
  if (byMx !== null && byMx !== 'other') return byMx;
  return mxProviderOf(servers) ?? 'other';
}

/** The 201 body: the mailbox as the list shows it, connected and without reputation yet. */
export const connectedMailboxItemSchema = mailboxBodySchema.extend({ reputation: historyFields.reputation });
export type ConnectedMailboxListItem = z.infer<typeof connectedMailboxItemSchema>;

export async function connectMailbox(
  admin: MailboxAdmin,
  input: ConnectMailboxBody,
  servers: MailServers,
  now: Date,
  log: Logger,
): Promise<ConnectedMailboxListItem> {
  const { companyId } = admin;
  if (await readConnectedMailboxByEmail(companyId, input.email))
    throw new ConflictError(alreadyConnectedMessage);
  const domain = input.email.slice(input.email.lastIndexOf('@') + 1);
  const timeoutMs = settings().MAILBOX_TIMEOUT_MS;
  const [imap, smtp] = await Promise.all([
    resolveServerHost('IMAP', input.imap.host, input.imap.port).then((address): ServerLogin => ({
      ...input.imap,
      address,
    })),
    resolveServerHost('SMTP', input.smtp.host, input.smtp.port).then((address): ServerLogin => ({
      ...input.smtp,
      address,
    })),
  ]).catch((error: unknown) => {
    throw asBadRequest(error);
  });
  const [imapLogin, smtpLogin, found] = await Promise.allSettled([
    servers.verifyImap(imap, timeoutMs),
    servers.verifySmtp(smtp, timeoutMs),
    provider(domain, [input.imap.host, input.smtp.host]),
  ]);
  if (imapLogin.status === 'rejected') throw asBadRequest(imapLogin.reason);
  if (smtpLogin.status === 'rejected') throw asBadRequest(smtpLogin.reason);
  const id = randomUUID();
  const at = now.toISOString();
  const row: MailboxRow = {
    id,
    email: input.email,
    domain,
    provider: found.status === 'fulfilled' ? found.value : 'other',
    connectionStatus: 'connected',
    connectedAt: at,
    statusUpdatedAt: at,
    owner: personOf(admin),
  };
  const server = ({ host, port, security, username }: ServerLogin) => ({ host, port, security, username });
  const credentials = await credentialsPut(
    {
      companyId,
      mailboxId: id,
      email: input.email,
      domain,
      connectionStatus: 'connected',
      connectedAt: at,
      imap: server(imap),
      smtp: server(smtp),
    },
    { imap: input.imap.password, smtp: input.smtp.password },
  );
  await addConnectedMailbox(companyId, row, [credentials], now);
  log.info('mailbox connected', { mailboxId: id, provider: row.provider });
  return {
    connectedAt: row.connectedAt,
    connectionStatus: 'connected',
    domain: row.domain,
    email: row.email,
    id,
    owner: row.owner,
    provider: row.provider,
    reputation: null,
    statusUpdatedAt: row.statusUpdatedAt,
  };
}

/** Disconnects a mailbox (admin): its credentials, item and series are deleted; 404 when unknown. */
export async function disconnectMailbox(
  admin: MailboxAdmin,
  id: string,
  now: Date,
  log: Logger,
): Promise<void> {
  await removeConnectedMailbox(admin.companyId, id, now);
  log.info('mailbox disconnected', { mailboxId: id });
}
