// Stock OpenSMTPD (Debian's opensmtpd 6.8, unpacked at /opt/mailvet-mtas/opensmtpd) as a probe target on
// one loopback address, in the foreground (-d) with its own smtpd.conf (-f); its verbose log (-v) on
// stdout is parsed to count what the prober did.
//
// Configured as smtpd.conf(5) describes (man page shipped with the package; https://man.openbsd.org/smtpd.conf):
// - `listen on <address> port <port>`; `match from any for domain <domains> action "mbox"` with a
//   maildir action whose `virtual <table>` lists the mailboxes ("@domain" is a catch-all, table(5)) and
//   `user` delivers for every virtual user (the "virtual domains" form of the man page);
// - a builtin filter at the rcpt-to phase rejects the disabled mailboxes with "550 5.2.1 Mailbox disabled";
// - OpenSMTPD's spool (/var/spool/smtpd) and control socket are compiled in: one instance per machine,
//   which is why only this harness runs it. Its privilege-separation users and chroot directory are
//   created when missing (the package's postinst would have made them).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnMta, tail, waitForSmtp, type MtaProcess, type TargetMailboxes } from './mta-process';

const SMTPD_BINARY = '/opt/mailvet-mtas/opensmtpd/usr/sbin/smtpd';

export interface OpenSmtpdOptions extends TargetMailboxes {
  dir: string;
  host: string;
  port: number;
}

export interface OpenSmtpd {
  stop(): Promise<void>;
  log(): string;
  counts(): OpenSmtpdCounts;
}

export interface OpenSmtpdCounts {
  /** The most sessions open at once (connected / disconnected lines in order). */
  maxOpen: number;
  /** RCPT refusals per address with their replies. */
  refusals: Map<string, string[]>;
  /** Messages received: must be none. */
  messages: number;
}

/** The users and directory OpenSMTPD's package would have created (debian/opensmtpd.postinst). */
function ensureSystemSetup(): void {
  for (const user of ['opensmtpd', 'opensmtpq'])
    try {
      execFileSync('id', [user], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
    }
  mkdirSync('/var/lib/opensmtpd/empty', { recursive: true });
}

export async function startOpenSmtpd(o: OpenSmtpdOptions): Promise<OpenSmtpd> {
  ensureSystemSetup();
  chmodSync(o.dir, 0o755);
  mkdirSync(join(o.dir, 'mail'), { recursive: true });
  const vusers = join(o.dir, 'vusers');
  const refused = join(o.dir, 'refused');
  // every virtual mailbox is delivered as `nobody` (the action's `user`)
  writeFileSync(
    vusers,
    [...o.live, o.sender].map((a) => `${a} nobody\n`).join('') + `@${o.catchAllDomain} nobody\n`,
  );
  writeFileSync(refused, [...o.disabled, ...o.catchAllRefused].map((a) => `${a}\n`).join(''));
  const domains = [o.domain, o.catchAllDomain, o.sender.split('@')[1]];
  const conf = join(o.dir, 'smtpd.conf');
  writeFileSync(
    conf,
    `# mailvet real-MTA probe target (see opensmtpd.ts)
table vusers file:${vusers}
table refused file:${refused}
table domains { ${domains.join(', ')} }
filter "disabled" phase rcpt-to match rcpt-to <refused> reject "550 5.2.1 Mailbox disabled"
listen on ${o.host} port ${o.port} filter "disabled"
action "mbox" maildir "${join(o.dir, 'mail')}/%{dest.user}" virtual <vusers> user nobody
match from any for domain <domains> action "mbox"
`,
  );
  const out = join(o.dir, 'smtpd.out');
  const proc: MtaProcess = spawnMta('opensmtpd', SMTPD_BINARY, ['-d', '-v', '-f', conf], out);
  await waitForSmtp(o.host, o.port, () => tail(out)).catch(async (e: unknown) => {
    await proc.stop();
    throw e;
  });
  const log = () => (existsSync(out) ? readFileSync(out, 'utf8') : '');
  return {
    stop: () => proc.stop(),
    log,
    counts: () => {
      const text = log();
      let open = 0;
      let maxOpen = 0;
      for (const m of text.matchAll(/ smtp (connected|disconnected) /g)) {
        open += m[1] === 'connected' ? 1 : -1;
        maxOpen = Math.max(maxOpen, open);
      }
      const refusals = new Map<string, string[]>();
      for (const m of text.matchAll(/failed-command command="RCPT TO:<([^>]*)>[^"]*" result="([^"]*)"/g))
        refusals.set(m[1]!, [...(refusals.get(m[1]!) ?? []), m[2]!]);
      return { maxOpen, refusals, messages: (text.match(/ smtp message /g) ?? []).length };
    },
  };
}
