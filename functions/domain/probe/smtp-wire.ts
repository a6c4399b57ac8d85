// The wire under every mailbox probe: a TCP connection (direct or through a SOCKS5 proxy), the reply
// reader (multi-line replies, RFC 5321 4.2.1), and the STARTTLS upgrade (RFC 3207).
import net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { parseReply, type SmtpReply } from '../validation/smtp-reply';

export class Timeout extends Error {}
class Closed extends Error {}
/** The TLS handshake after STARTTLS failed: the session is lost, a plain one may still work. */
export class TlsFailed extends Error {}

/** Collects multi-line replies ("250-..." continues, "250 ..." ends) from a socket. */
export class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private readonly ready: SmtpReply[] = [];
  private waiter: ((r: SmtpReply | Error) => void) | null = null;
  private failure: Error | null = null;
  private readonly onData = (chunk: string) => this.feed(chunk);
  private readonly onError = () => this.fail(new Closed('socket error'));
  private readonly onClose = () => this.fail(new Closed('connection closed'));

  constructor(private readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  /** Stops reading (the socket is handed to TLS). */
  detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('error', this.onError);
    this.socket.off('close', this.onClose);
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > 64 * 1024) return this.fail(new Closed('reply too long'));
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      this.lines.push(line);
      if (line.length < 4 || line[3] !== '-') {
        this.push(parseReply(this.lines));
        this.lines = [];
      }
    }
  }

  private push(reply: SmtpReply): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w(reply);
    } else this.ready.push(reply);
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    const w = this.waiter;
    this.waiter = null;
    w?.(e);
  }

  next(timeoutMs: number): Promise<SmtpReply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new Timeout('no reply'));
      }, timeoutMs);
      this.waiter = (x) => {
        clearTimeout(timer);
        if (x instanceof Error) reject(x);
        else resolve(x);
      };
    });
  }
}

export function connectDirect(address: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('connect timeout'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

export async function connectSocks(
  proxy: string,
  address: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  const url = new URL(proxy);
  const { socket } = await SocksClient.createConnection({
    proxy: {
      host: url.hostname,
      port: Number(url.port || 1080),
      type: 5,
      userId: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
    },
    command: 'connect',
    destination: { host: address, port },
    timeout: timeoutMs,
  });
  return socket;
}

/**
 * TLS over an open SMTP connection after the server's 220 to STARTTLS. Certificates are not verified:
 * MTAs deliver over opportunistic TLS to self-signed and mismatched certificates alike (RFC 7435), and
 * the probe must see what a delivery would see. SNI carries the MX host name, never an IP (RFC 6066 3).
 */
export function startTls(
  socket: net.Socket,
  serverName: string | undefined,
  timeoutMs: number,
): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const sni = serverName && net.isIP(serverName) === 0 ? serverName.replace(/\.$/, '') : undefined;
    const secure = tls.connect({ socket, servername: sni, rejectUnauthorized: false });
    const timer = setTimeout(() => {
      secure.destroy();
      reject(new TlsFailed('TLS handshake timeout'));
    }, timeoutMs);
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      secure.off('error', onError);
      resolve(secure);
    });
    const onError = (e: Error) => {
      clearTimeout(timer);
      secure.destroy();
      reject(new TlsFailed(`TLS handshake: ${e.message}`));
    };
    secure.once('error', onError);
  });
}
