// A real mail system on loopback for the connected-mailbox tests: Postfix (submission + MX), Dovecot (IMAP,
// LMTP, SASL), rspamd (DKIM signing, SPF/DKIM/DMARC checks, the spam verdict) and NSD (the domains' SPF,
// DKIM and DMARC records), each started from the Debian packages in its own temp dir and stopped with
// everything it forked. Mail from a domain with `spfDkimPass` is DKIM-signed and sent from the address its
// SPF names; mail from the others fails SPF, carries no signature and fails DMARC p=reject, which rspamd
// turns into "add header" and Dovecot's sieve files into Junk (special-use \Junk).
// See test/helpers/real-servers/README.md.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDovecot, dovecotDeliveries, type Delivery } from './dovecot';
import { startRigDns, type ZoneRecord } from './mail-rig-dns';
import { endLeftoverRig, killGroupsNow, recordFile, removeRecord, writeRecord } from './mail-rig-leftovers';
import { makeRigTls } from './mail-rig-tls';
import { assertFree, processGroupMembers, type ServerProcess } from './mail-rig-process';
import { startPostfix } from './postfix-mail';
import { rspamdVerdicts, startRspamd, type RspamdVerdict } from './rspamd';

export interface MailRigDomain {
  name: string;
  /** true: SPF, DKIM and DMARC pass (mail lands in INBOX); false: all three fail (rspamd files it as spam). */
  spfDkimPass: boolean;
}

export interface MailRigOptions {
  domains: MailRigDomain[];
  mailboxes: { email: string; password: string }[];
  /**
   * First of the four consecutive loopback addresses the rig takes (`base`+0 internal: DNS, milter, LMTP,
   * SASL; +1 IMAP; +2 submission, also the sending address SPF names; +3 MX). Two rigs running at once
   * need different blocks, so there is no default: pass one from your own loopback range.
   */
  addressBase: string;
  /**
   * Keep Dovecot's delays after a failed login (2 s, and a per-client-IP penalty growing to 15 s). Off by
   * default so a test can try a wrong password and then the right one without waiting.
   */
  authDelays?: boolean;
  /** Keep the temp dir after stop (for reading the configs and logs by hand). */
  keepDir?: boolean;
}

export interface MailEndpoint {
  host: string;
  port: number;
  security: 'tls' | 'starttls';
  /** The rig CA's certificate (PEM), for a client's `ca` option. */
  ca: string;
}

/** A message Dovecot's LMTP filed, with the verdict rspamd logged for it (matched on Message-ID). */
export interface RigDelivery extends Delivery {
  verdict: RspamdVerdict | undefined;
}

export interface MailRig {
  dir: string;
  /** The CA file to put in NODE_EXTRA_CA_CERTS of a process that must trust the rig's servers. */
  caFile: string;
  /**
   * The rig's authoritative DNS (NSD) for its domains: MX (mx.<domain>), A for imap./smtp./mx.<domain>,
   * SPF, DKIM and DMARC. Shaped like dns.ts's DnsEndpoint, so an Unbound can stub-zone the rig's domains to
   * it; `server` is "address:port" as DNS_SERVERS takes it.
   */
  dns: { address: string; port: number; server: string };
  /** IMAP over implicit TLS (993) and with STARTTLS (143). */
  imap: MailEndpoint;
  imapStarttls: MailEndpoint;
  /** Submission with STARTTLS (587) and over implicit TLS (465). */
  submission: MailEndpoint;
  submissionTls: MailEndpoint;
  /** The body of POST /v1/connected-mailboxes for one of the rig's mailboxes (decisions: "Connected mailboxes"). */
  connectBody(email: string, security?: 'tls' | 'starttls'): ConnectBody;
  /** Changes a mailbox's password on the server; resolves once Dovecot (IMAP and Postfix's SASL) takes it. */
  setPassword(email: string, password: string): Promise<void>;
  /** What the servers' own logs say was delivered, oldest first: recipient, folder, Message-ID, subject. */
  deliveredFolders(): RigDelivery[];
  /** Every scan rspamd logged (submission scans carry `authenticatedUser`), oldest first. */
  filterVerdicts(): RspamdVerdict[];
  /** Waits until at least `count` deliveries are logged; throws with the logs' tails after `timeoutMs`. */
  waitForDeliveries(count: number, timeoutMs?: number): Promise<RigDelivery[]>;
  /** Pids of every process the rig's servers are running now (their process groups). */
  processes(): number[];
  /** The tail of each server's log, for a failing test's message. */
  logs(): string;
  stop(): Promise<void>;
}

export interface ConnectBody {
  email: string;
  imap: { host: string; port: number; security: 'tls' | 'starttls'; username: string; password: string };
  smtp: { host: string; port: number; security: 'tls' | 'starttls'; username: string; password: string };
}

const ports = {
  dns: 53,
  milter: 11332,
  lmtp: 24,
  auth: 12345,
  imaps: 993,
  imap: 143,
  submission: 587,
  submissions: 465,
  mx: 25,
};
const selector = 'mailrig';
// The address mail from a failing domain's SPF names instead of the rig's (TEST-NET-1, RFC 5737).
const elsewhere = '192.0.2.1';

function addressesFrom(base: string): [string, string, string, string] {
  const parts = base.split('.').map(Number);
  const last = parts[3] ?? NaN;
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p)) || last > 251)
    throw new Error(`bad addressBase ${base}`);
  const at = (n: number) => `${parts[0]}.${parts[1]}.${parts[2]}.${last + n}`;
  return [at(0), at(1), at(2), at(3)];
}

function dkimKey(): { privatePem: string; publicB64: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicB64: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

export async function startMailRig(options: MailRigOptions): Promise<MailRig> {
  const [internal, imapHost, submissionHost, mxHost] = addressesFrom(options.addressBase);
  const domains = options.domains.map((d) => ({ ...d, name: d.name.toLowerCase() }));
  for (const m of options.mailboxes) {
    const domain = m.email.split('@')[1]?.toLowerCase();
    if (!domains.some((d) => d.name === domain))
      throw new Error(`mailbox ${m.email} is not in one of the rig's domains`);
  }
  const record = recordFile(options.addressBase);
  await endLeftoverRig(record);
  await Promise.all(
    [
      [internal, ports.dns],
      [internal, ports.milter],
      [internal, ports.lmtp],
      [internal, ports.auth],
      [imapHost, ports.imaps],
      [imapHost, ports.imap],
      [submissionHost, ports.submission],
      [submissionHost, ports.submissions],
      [mxHost, ports.mx],
    ].map(([host, port]) => assertFree(String(host), Number(port))),
  );
  const dir = mkdtempSync(join(tmpdir(), 'mail-rig-'));
  chmodSync(dir, 0o755);
  const started: ServerProcess[] = [];
  const onExit = () => killGroupsNow(started.map((s) => s.pid));
  process.on('exit', onExit);
  const stopAll = async () => {
    await Promise.all(started.map((s) => s.stop()));
    process.off('exit', onExit);
    removeRecord(record);
  };
  try {
    const first = domains[0]?.name ?? 'mailrig.test';
    const dnsNames = domains.flatMap((d) => [`imap.${d.name}`, `smtp.${d.name}`, `mx.${d.name}`]);
    const tls = await makeRigTls(dir, [imapHost, submissionHost, mxHost], dnsNames);
    const keys: Record<string, string> = {};
    const zones: Record<string, ZoneRecord[]> = {};
    for (const d of domains) {
      const records: ZoneRecord[] = [
        { name: '@', type: 'MX', value: `10 mx.${d.name}.` },
        { name: 'mx', type: 'A', value: mxHost },
        { name: 'imap', type: 'A', value: imapHost },
        { name: 'smtp', type: 'A', value: submissionHost },
        { name: '@', type: 'TXT', value: `v=spf1 ip4:${d.spfDkimPass ? submissionHost : elsewhere} -all` },
        { name: '_dmarc', type: 'TXT', value: 'v=DMARC1; p=reject' },
      ];
      if (d.spfDkimPass) {
        const key = dkimKey();
        keys[d.name] = key.privatePem;
        records.push({
          name: `${selector}._domainkey`,
          type: 'TXT',
          value: `v=DKIM1; k=rsa; p=${key.publicB64}`,
        });
      }
      zones[d.name] = records;
    }
    const track = (server: ServerProcess) => {
      started.push(server);
      writeRecord(record, { dir, pgids: started.map((s) => s.pid) });
    };
    const dns = await startRigDns(join(dir, 'nsd'), internal, ports.dns, zones, track);
    const [rspamd, dovecot, postfix] = await Promise.all([
      startRspamd({
        dir: join(dir, 'rspamd'),
        host: internal,
        port: ports.milter,
        nameserver: dns,
        dkimKeys: keys,
        selector,
        tlds: domains.map((d) => d.name.split('.').pop() ?? d.name),
        track,
      }),
      startDovecot({
        dir: join(dir, 'dovecot'),
        imapHost,
        imapsPort: ports.imaps,
        imapPort: ports.imap,
        internalHost: internal,
        lmtpPort: ports.lmtp,
        authPort: ports.auth,
        certFile: tls.certFile,
        keyFile: tls.keyFile,
        mailboxes: options.mailboxes,
        authDelays: options.authDelays ?? false,
        track,
      }),
      // Postfix reaches the milter, LMTP and SASL only per message, so it starts alongside them.
      startPostfix({
        dir: join(dir, 'postfix'),
        hostname: `smtp.${first}`,
        mxHostname: `mx.${first}`,
        submissionHost,
        submissionPort: ports.submission,
        submissionsPort: ports.submissions,
        mxHost,
        mxPort: ports.mx,
        domains: domains.map((d) => d.name),
        mailboxes: options.mailboxes.map((m) => m.email),
        milter: `inet:${internal}:${ports.milter}`,
        lmtp: { host: internal, port: ports.lmtp },
        saslAuth: { host: internal, port: ports.auth },
        certFile: tls.certFile,
        keyFile: tls.keyFile,
        track,
      }),
    ]);

    const endpoint = (host: string, port: number, security: 'tls' | 'starttls'): MailEndpoint => ({
      host,
      port,
      security,
      ca: tls.caPem,
    });
    const imap = endpoint(imapHost, ports.imaps, 'tls');
    const imapStarttls = endpoint(imapHost, ports.imap, 'starttls');
    const submission = endpoint(submissionHost, ports.submission, 'starttls');
    const submissionTls = endpoint(submissionHost, ports.submissions, 'tls');
    const passwords = new Map(options.mailboxes.map((m) => [m.email.toLowerCase(), m.password]));
    const deliveredFolders = (): RigDelivery[] => {
      const verdicts = rspamdVerdicts(rspamd.logFile).filter((v) => !v.authenticatedUser);
      return dovecotDeliveries(dovecot.logFile).map((d) => ({
        ...d,
        verdict: verdicts.findLast((v) => v.messageId !== '' && v.messageId === d.messageId),
      }));
    };
    const logs = () =>
      [postfix.logFile, dovecot.logFile, rspamd.logFile]
        .map((file) => `--- ${file}\n${tail(file)}`)
        .join('\n');
    return {
      dir,
      caFile: tls.caFile,
      dns: { address: internal, port: ports.dns, server: `${internal}:${ports.dns}` },
      imap,
      imapStarttls,
      submission,
      submissionTls,
      connectBody(email, security = 'tls') {
        const password = passwords.get(email.toLowerCase());
        if (password === undefined) throw new Error(`no mailbox ${email} in the rig`);
        const i = security === 'tls' ? imap : imapStarttls;
        const s = security === 'tls' ? submissionTls : submission;
        return {
          email,
          imap: { host: i.host, port: i.port, security, username: email, password },
          smtp: { host: s.host, port: s.port, security, username: email, password },
        };
      },
      async setPassword(email, password) {
        await dovecot.setPassword(email, password);
        passwords.set(email.toLowerCase(), password);
      },
      deliveredFolders,
      filterVerdicts: () => rspamdVerdicts(rspamd.logFile),
      async waitForDeliveries(count, timeoutMs = 20_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const found = deliveredFolders();
          if (found.length >= count) return found;
          if (Date.now() > deadline)
            throw new Error(
              `mail rig: ${found.length} of ${count} deliveries after ${timeoutMs} ms\n${logs()}`,
            );
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      logs,
      processes: () => processGroupMembers(started.map((s) => s.pid)),
      async stop() {
        await stopAll();
        if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll();
    if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
