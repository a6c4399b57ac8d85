// IMAP adapter of connected mailboxes (imapflow): checks a login, and reads where placement tests
// landed. Certificates are verified against the host name the user gave (Node's CAs plus
// NODE_EXTRA_CA_CERTS); the connection goes to the address checked at connect time. No protocol log:
// imapflow's logger is off, so no command (LOGIN carries the password) reaches a log line.
import { isIP } from 'node:net';
import { ImapFlow } from 'imapflow';
import { errorField, mailServerError, type ServerAddress } from './mail-server-errors';

export interface ImapLogin extends ServerAddress {
  security: 'tls' | 'starttls';
  username: string;
  password: string;
}

/** A tagged message found in a folder of the receiving mailbox. */
export interface FoundMessage {
  messageId: string;
  subject: string;
  folder: 'inbox' | 'spam';
}

/** Names providers give the spam folder when the server does not mark it `\Junk` (RFC 6154). */
const spamFolderNames = /^(junk|spam|junk e-?mail|bulk mail|\[gmail\]\/spam|inbox[./]junk|inbox[./]spam)$/i;

function client(login: ImapLogin, timeoutMs: number): ImapFlow {
  return new ImapFlow({
    host: login.address,
    // SNI carries host names only (RFC 6066); an address is checked against the certificate's IP names.
    ...(isIP(login.host) ? {} : { servername: login.host }),
    port: login.port,
    secure: login.security === 'tls',
    doSTARTTLS: login.security === 'starttls' ? true : undefined,
    auth: { user: login.username, pass: login.password },
    tls: {
      ...(isIP(login.host) ? { host: login.host } : { servername: login.host }),
      rejectUnauthorized: true,
    },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 4,
  } as ConstructorParameters<typeof ImapFlow>[0]);
}

/** Runs `work` in a logged-in session; a failure is a MailboxLoginError or MailboxUnreachableError. */
async function session<T>(
  login: ImapLogin,
  timeoutMs: number,
  work: (imap: ImapFlow) => Promise<T>,
): Promise<T> {
  const imap = client(login, timeoutMs);
  imap.on('error', () => undefined); // errors reach the awaited call; this only keeps the emitter quiet
  try {
    await imap.connect();
  } catch (error) {
    const authFailed = typeof error === 'object' && error !== null && 'authenticationFailed' in error;
    throw mailServerError('IMAP', login, error, authFailed, errorField(error, 'responseText'));
  }
  try {
    return await work(imap);
  } catch (error) {
    throw mailServerError('IMAP', login, error, false, undefined);
  } finally {
    await imap.logout().catch(() => imap.close());
  }
}

/** Logs in and out: the mailbox's IMAP settings work. */
export function verifyImapLogin(login: ImapLogin, timeoutMs: number): Promise<void> {
  return session(login, timeoutMs, async () => undefined);
}

/** The spam folder's path: the `\Junk` special-use mailbox, else a provider's usual name; null if none. */
async function spamFolder(imap: ImapFlow): Promise<string | null> {
  const folders = await imap.list();
  const marked = folders.find((f) => f.specialUse === '\\Junk' && f.specialUseSource !== 'name');
  if (marked) return marked.path;
  return folders.find((f) => spamFolderNames.test(f.path) || f.specialUse === '\\Junk')?.path ?? null;
}

/** Tagged messages of one folder whose Message-ID contains `marker`. */
async function tagged(
  imap: ImapFlow,
  path: string,
  marker: string,
): Promise<{ uid: number; messageId: string; subject: string }[]> {
  const lock = await imap.getMailboxLock(path);
  try {
    const uids = await imap.search({ header: { 'message-id': marker } }, { uid: true });
    if (!uids || uids.length === 0) return [];
    const messages = await imap.fetchAll(uids, { uid: true, envelope: true }, { uid: true });
    return messages.map((m) => ({
      uid: m.uid,
      messageId: m.envelope?.messageId ?? '',
      subject: m.envelope?.subject ?? '',
    }));
  } finally {
    lock.release();
  }
}

/**
 * Where the messages whose Message-ID contains `marker` are: the inbox or the spam folder. Those in
 * spam are marked read and moved to the inbox (as warm-up networks do), so they are reported once.
 */
export function readTaggedMessages(
  login: ImapLogin,
  marker: string,
  timeoutMs: number,
): Promise<FoundMessage[]> {
  return session(login, timeoutMs, async (imap) => {
    const found: FoundMessage[] = [];
    const spamPath = await spamFolder(imap);
    if (spamPath !== null) {
      const inSpam = await tagged(imap, spamPath, marker);
      if (inSpam.length > 0) {
        const lock = await imap.getMailboxLock(spamPath);
        try {
          const uids = inSpam.map((m) => m.uid);
          await imap.messageFlagsAdd(uids, ['\\Seen'], { uid: true });
          await imap.messageMove(uids, 'INBOX', { uid: true });
        } finally {
          lock.release();
        }
      }
      found.push(
        ...inSpam.map(({ messageId, subject }) => ({ messageId, subject, folder: 'spam' as const })),
      );
    }
    const inInbox = await tagged(imap, 'INBOX', marker);
    const moved = new Set(found.map((m) => m.messageId));
    for (const { messageId, subject } of inInbox)
      if (!moved.has(messageId)) found.push({ messageId, subject, folder: 'inbox' });
    return found;
  });
}
