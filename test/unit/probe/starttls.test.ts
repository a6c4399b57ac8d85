// STARTTLS: the probe upgrades when the server offers it, goes to TLS when a server that hides it
// requires it, sends the MX name (never an IP) as SNI, accepts a self-signed certificate, and after a
// failed handshake tries once more in plain text.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { ValidationEngine } from '../../../functions/domain/validation';
import { probeRecipients } from '../../../functions/domain/validation/smtp-probe';
import { MemoryPoliteness } from '../../../functions/domain/probe/politeness';
import { startFixtureDns, type FixtureDns } from '../validation/fixtures/dns-server';

const fixtures = path.join(__dirname, '../../fixtures/tls');
const key = readFileSync(path.join(fixtures, 'mx.key.pem'));
const cert = readFileSync(path.join(fixtures, 'mx.cert.pem'));

interface TlsServer {
  port: number;
  /** SNI names the clients sent. */
  sni: string[];
  /** RCPT TO addresses with whether the session was over TLS then. */
  rcpts: { address: string; secure: boolean }[];
  close(): Promise<void>;
}

/** smtp-server with the fixture certificate; MAIL FROM is refused until the session runs over TLS. */
async function startTlsOnlySmtp(extra: Partial<SMTPServerOptions> = {}): Promise<TlsServer> {
  const sni: string[] = [];
  const rcpts: TlsServer['rcpts'] = [];
  const context = tls.createSecureContext({ key, cert });
  const server = new SMTPServer({
    key,
    cert,
    authOptional: true,
    disabledCommands: ['AUTH'],
    disableReverseLookup: true,
    logger: false,
    SNICallback: (name, cb) => {
      sni.push(name);
      cb(null, context);
    },
    onMailFrom(_address, session, callback) {
      if (!session.secure)
        return callback(
          Object.assign(new Error('5.7.0 Must issue a STARTTLS command first'), { responseCode: 530 }),
        );
      callback();
    },
    onRcptTo(address, session, callback) {
      rcpts.push({ address: address.address, secure: session.secure });
      if (address.address.startsWith('ann@')) return callback();
      callback(
        Object.assign(new Error('5.1.1 <' + address.address + '>: user unknown'), { responseCode: 550 }),
      );
    },
    ...extra,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const bound = server.server.address();
  if (!bound || typeof bound === 'string') throw new Error('TLS fixture did not bind');
  return { port: bound.port, sni, rcpts, close: () => new Promise((r) => server.close(() => r())) };
}

const smtpOptions = (port: number) => ({
  port,
  timeoutMs: 5000,
  heloName: 'probe.mailvet.test',
  mailFrom: 'probe@mailvet.test',
  greylistAttempts: 1,
  greylistDelayMs: 10,
});

let dns: FixtureDns;

beforeAll(async () => {
  dns = await startFixtureDns({
    'tls.test': { mx: [{ exchange: 'mx.tls.test', priority: 10 }] },
    'mx.tls.test': { a: ['127.0.0.1'] },
  });
});

afterAll(async () => {
  await dns?.close();
});

describe('STARTTLS', () => {
  it('probes a STARTTLS-only server over TLS: its 550 5.1.1 gives mailbox_not_found', async () => {
    const server = await startTlsOnlySmtp();
    try {
      const engine = new ValidationEngine({
        dnsServers: dns.servers,
        dnsTimeoutMs: 5000,
        dnsTries: 1,
        allowPrivateMx: true,
        smtpProbe: true,
        smtp: smtpOptions(server.port),
      });
      const gone = await engine.validate('nobody@tls.test');
      expect(gone.result).toEqual({
        status: 'block_bounce_risk',
        reason: 'mailbox_not_found',
        subStatus: '5.1.1',
      });
      expect(gone.mailbox.smtpProbe).toBe('not_found');
      expect(gone.mailbox.smtpReply).toMatchObject({ code: 550, enhanced: '5.1.1' });
      expect(gone.domain.isCatchAll).toBe(false);
      const ok = await engine.validate('ann@tls.test');
      expect(ok.result).toEqual({ status: 'safe', reason: 'accepted', subStatus: null });
      // every RCPT went over TLS, and the SNI named the MX host
      expect(server.rcpts.map((r) => r.secure)).toEqual(server.rcpts.map(() => true));
      expect(server.rcpts.map((r) => r.address)).toContain('nobody@tls.test');
      expect(new Set(server.sni)).toEqual(new Set(['mx.tls.test']));
    } finally {
      await server.close();
    }
  });

  it('goes to TLS when MAIL FROM demands it although EHLO did not offer STARTTLS', async () => {
    const server = await startTlsOnlySmtp({ hideSTARTTLS: true });
    try {
      const [result] = await probeRecipients(
        ['127.0.0.1'],
        ['zed@tls.test'],
        smtpOptions(server.port),
        new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 20, leaseMs: 60_000 }),
        'mx.tls.test',
      );
      expect(result?.probe).toBe('not_found');
      expect(server.rcpts).toEqual([{ address: 'zed@tls.test', secure: true }]);
    } finally {
      await server.close();
    }
  });

  it('sends no SNI when all it has is an IP address', async () => {
    const server = await startTlsOnlySmtp();
    try {
      const [result] = await probeRecipients(
        ['127.0.0.1'],
        ['ann@tls.test'],
        smtpOptions(server.port),
        new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 20, leaseMs: 60_000 }),
        '127.0.0.1',
      );
      expect(result?.probe).toBe('accepted');
      expect(server.sni).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('retries once in plain text after a failed TLS handshake', async () => {
    // offers STARTTLS, says 220, then answers the ClientHello with plain text: the handshake fails
    const sessions: { startTls: boolean; rcpt: string[] }[] = [];
    const server = net.createServer((socket) => {
      const session = { startTls: false, rcpt: [] as string[] };
      sessions.push(session);
      socket.on('error', () => undefined);
      socket.write('220 broken-tls.test ESMTP\r\n');
      let buffer = '';
      socket.on('data', (chunk) => {
        if (session.startTls) {
          socket.end('this is not TLS\r\n');
          return;
        }
        buffer += chunk.toString('latin1');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === 'EHLO') socket.write('250-broken-tls.test\r\n250-STARTTLS\r\n250 PIPELINING\r\n');
          else if (verb === 'STAR') {
            session.startTls = true;
            socket.write('220 2.0.0 Ready to start TLS\r\n');
          } else if (verb === 'MAIL') socket.write('250 2.1.0 OK\r\n');
          else if (verb === 'RCPT') {
            session.rcpt.push(line);
            socket.write('550 5.1.1 <kim@tls.test>: Recipient address rejected: User unknown\r\n');
          } else if (verb === 'QUIT') socket.end('221 2.0.0 Bye\r\n');
          else socket.write('250 OK\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const [result] = await probeRecipients(
        ['127.0.0.1'],
        ['kim@tls.test'],
        smtpOptions(port),
        new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 20, leaseMs: 60_000 }),
        'mx.tls.test',
      );
      expect(result?.probe).toBe('not_found');
      expect(result?.reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
      // the first session tried TLS and failed; the second went on in plain text
      expect(sessions.map((s) => ({ startTls: s.startTls, rcpts: s.rcpt.length }))).toEqual([
        { startTls: true, rcpts: 0 },
        { startTls: false, rcpts: 1 },
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
