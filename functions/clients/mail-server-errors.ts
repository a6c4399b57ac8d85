// What a socket, TLS or protocol error of an IMAP or SMTP session means for a connected mailbox: a
// refused login (MailboxLoginError) or a server that could not be used (MailboxUnreachableError).
import { MailboxLoginError, MailboxUnreachableError, type MailboxProtocol } from '../errors';

export interface ServerAddress {
  /** The name the user gave (certificates are checked against it). */
  host: string;
  /** The address the name resolved to when the mailbox was checked (connections go there). */
  address: string;
  port: number;
}

const networkReasons: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  ETIMEOUT: 'timed out',
  CONNECT_TIMEOUT: 'connection timed out',
  GREETING_TIMEOUT: 'no greeting from the server',
  UPGRADE_TIMEOUT: 'TLS upgrade timed out',
  NoConnection: 'connection closed',
  EConnectionClosed: 'connection closed',
  ClosedAfterConnectTLS: 'the server closed the connection after the TLS handshake',
  ClosedAfterConnectText: 'the server closed the connection',
};

const tlsCodes =
  /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|EPROTO|HOSTNAME|ALTNAME|DEPTH_ZERO|wrong version number/i;

function field(error: unknown, name: string): string | undefined {
  if (typeof error !== 'object' || error === null || !(name in error)) return undefined;
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** The mailbox error a failed IMAP or SMTP session stands for. */
export function mailServerError(
  protocol: MailboxProtocol,
  server: ServerAddress,
  error: unknown,
  authFailed: boolean,
  serverWords: string | undefined,
): MailboxLoginError | MailboxUnreachableError {
  if (authFailed) return new MailboxLoginError(protocol, (serverWords ?? 'authentication failed').trim());
  const code = field(error, 'code') ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const reason =
    networkReasons[code] ??
    (tlsCodes.test(code) || tlsCodes.test(message)
      ? `TLS failed (${message.replace(/\s+/g, ' ').slice(0, 200)})`
      : `${message.replace(/\s+/g, ' ').slice(0, 200)}`);
  return new MailboxUnreachableError(protocol, server.host, server.port, reason);
}

export { field as errorField };
