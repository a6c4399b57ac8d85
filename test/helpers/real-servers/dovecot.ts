// Dovecot for the rig: IMAP (993 implicit TLS, 143 STARTTLS) for the mailboxes, LMTP for Postfix's
// deliveries with a sieve script that files rspamd's spam into Junk, and the auth service Postfix's
// submission uses for SASL. Passwords come from a passwd-file the rig rewrites (Dovecot re-reads a changed
// file at the next lookup). Docs: doc.dovecot.org 2.3 — configuration/authentication/passwd_file,
// configuration_manual/sieve (sieve_before), mail_log plugin, mailbox special_use (RFC 6154).
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { run, startServerProcess, waitForListening, type ServerProcess } from './mail-rig-process';

export interface DovecotOptions {
  /** Receives each server process as it is spawned (for stopping it whatever happens next). */
  track: (server: ServerProcess) => void;
  dir: string;
  /** IMAP listeners. */
  imapHost: string;
  imapsPort: number;
  imapPort: number;
  /** LMTP and auth listeners for Postfix (not for clients). */
  internalHost: string;
  lmtpPort: number;
  authPort: number;
  certFile: string;
  keyFile: string;
  mailboxes: { email: string; password: string }[];
  /** Keep Dovecot's default delays after a failed login (auth_failure_delay, the per-IP auth penalty). */
  authDelays?: boolean;
}

export interface Dovecot {
  server: ServerProcess;
  logFile: string;
  /** Rewrites the passwd-file, reloads Dovecot and resolves once its auth service accepts the new password. */
  setPassword(email: string, password: string): Promise<void>;
}

/** One message Dovecot saved while delivering over LMTP, from its mail_log lines. */
export interface Delivery {
  recipient: string;
  folder: string;
  uid: number;
  messageId: string;
  from: string;
  subject: string;
}

const mailUser = 'mail';

export async function startDovecot(options: DovecotOptions): Promise<Dovecot> {
  const { dir, track } = options;
  const runDir = join(dir, 'run');
  const mail = join(dir, 'mail');
  const sieve = join(dir, 'sieve');
  for (const d of [dir, runDir, mail, sieve, join(dir, 'state')]) mkdirSync(d, { recursive: true });
  const passwd = join(dir, 'passwd');
  const passwords = new Map(options.mailboxes.map((m) => [m.email.toLowerCase(), m.password]));
  const writePasswd = () => {
    // Written to a new file and renamed over the old one, so Dovecot never reads half a file.
    const lines = [...passwords].map(([email, password]) => `${email}:{PLAIN}${password}::::::`);
    writeFileSync(`${passwd}.new`, `${lines.join('\n')}\n`, { mode: 0o640 });
    chownSync(`${passwd}.new`, 0, Number(field('dovecot', 3)));
    renameSync(`${passwd}.new`, passwd);
  };
  writePasswd();
  let stamp = Math.floor(Date.now() / 1000);
  writeFileSync(
    join(sieve, 'spam.sieve'),
    'require ["fileinto"];\n# rspamd\'s "add header" action (the milter proxy\'s spam_header)\nif header :is "X-Spam" "Yes" {\n  fileinto "Junk";\n  stop;\n}\n',
  );
  const logFile = join(dir, 'dovecot.log');
  const conf = join(dir, 'dovecot.conf');
  const mailUid = Number(field(mailUser, 2));
  const mailGid = Number(field(mailUser, 3));
  chownSync(mail, mailUid, mailGid);
  chownSync(sieve, mailUid, mailGid);
  chmodSync(dir, 0o755);
  writeFileSync(
    conf,
    `# mail-rig Dovecot (${new Date().toISOString()})
base_dir = ${runDir}
state_dir = ${join(dir, 'state')}
instance_name = mailrig-${options.imapHost}
log_path = ${logFile}
info_log_path = ${logFile}
protocols = imap lmtp
listen = ${options.imapHost}
ssl = required
ssl_cert = <${options.certFile}
ssl_key = <${options.keyFile}
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain login
auth_verbose = yes
auth_cache_size = 0
${options.authDelays ? '' : '# Dovecot waits 2 s before refusing a login by default; the rig answers at once.\nauth_failure_delay = 0\n'}mail_location = maildir:${mail}/%d/%n
mail_uid = ${mailUid}
mail_gid = ${mailGid}
first_valid_uid = ${mailUid}
last_valid_uid = ${mailUid}
mail_plugins = $mail_plugins mail_log notify
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%Lu ${passwd}
}
userdb {
  driver = static
  args = uid=${mailUid} gid=${mailGid} home=${mail}/%Ld/%Ln
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Junk {
    special_use = \\Junk
    auto = subscribe
  }
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
  mailbox Trash {
    special_use = \\Trash
    auto = subscribe
  }
}
service imap-login {
  inet_listener imap {
    address = ${options.imapHost}
    port = ${options.imapPort}
  }
  inet_listener imaps {
    address = ${options.imapHost}
    port = ${options.imapsPort}
    ssl = yes
  }
}
service lmtp {
  inet_listener lmtp {
    address = ${options.internalHost}
    port = ${options.lmtpPort}
  }
}
${
  options.authDelays
    ? ''
    : `# No anvil-auth-penalty socket: no growing delay (2 s up to 15 s) for logins from an IP that just failed
# one, which would slow every test that tries a wrong password and then the right one from 127.0.0.1.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`
}service auth {
  inet_listener auth {
    address = ${options.internalHost}
    port = ${options.authPort}
  }
}
protocol lmtp {
  mail_plugins = $mail_plugins sieve
  postmaster_address = postmaster@${options.imapHost}
}
plugin {
  sieve_before = ${join(sieve, 'spam.sieve')}
  sieve = file:${mail}/%Ld/%Ln/sieve;active=${mail}/%Ld/%Ln/.dovecot.sieve
  mail_log_events = save copy mailbox_create expunge
  mail_log_fields = uid box msgid from subject
}
`,
  );
  const server = startServerProcess(
    'dovecot',
    'dovecot',
    ['-F', '-c', conf],
    join(dir, 'dovecot.out'),
    track,
  );
  await Promise.all([
    waitForListening(server, options.imapHost, options.imapsPort),
    waitForListening(server, options.imapHost, options.imapPort),
    waitForListening(server, options.internalHost, options.lmtpPort),
    waitForListening(server, options.internalHost, options.authPort),
  ]);
  return {
    server,
    logFile,
    async setPassword(email, password) {
      if (!passwords.has(email.toLowerCase())) throw new Error(`no mailbox ${email} in the rig`);
      passwords.set(email.toLowerCase(), password);
      writePasswd();
      // Dovecot re-reads a passwd-file whose mtime (seconds) or size changed, checking at most once a second;
      // each rewrite gets an mtime of its own so a same-length password written within a second is seen too.
      // `doveadm auth test` then proves the auth service (IMAP's and Postfix's) takes the new password.
      // (A reload would do it as well, but cuts Postfix's open SASL connections: a 454 no real server gives.)
      stamp = Math.max(stamp + 1, Math.floor(Date.now() / 1000));
      utimesSync(passwd, stamp, stamp);
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await run('doveadm', ['-c', conf, 'auth', 'test', '-x', 'service=imap', email, password]);
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
  };
}

/** The messages Dovecot's LMTP saved, oldest first (IMAP copies and moves are not deliveries). */
export function dovecotDeliveries(logFile: string): Delivery[] {
  if (!existsSync(logFile)) return [];
  const text = readFileSync(logFile, 'utf8');
  const deliveries: Delivery[] = [];
  for (const line of text.split('\n')) {
    // lmtp(bob@good.example)<pid><session>: Info: save: uid=1, box=INBOX, msgid=<..>, from=.., subject=..
    const match = /\blmtp\(([^)]+)\)[^:]*: (?:Info: )?save: (.*)$/.exec(line);
    if (!match) continue;
    const fields = parseFields(match[2] ?? '');
    deliveries.push({
      recipient: match[1] ?? '',
      folder: fields.box ?? '',
      uid: Number(fields.uid ?? 0),
      messageId: (fields.msgid ?? '').replace(/^<|>$/g, ''),
      from: fields.from ?? '',
      subject: fields.subject ?? '',
    });
  }
  return deliveries;
}

// mail_log writes `key=value, key=value`; values are not quoted, so a field runs to the next known key.
function parseFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const keys = /(?:^|, )(uid|box|msgid|from|subject|size|vsize|flags)=/g;
  const marks: { key: string; start: number; end: number }[] = [];
  for (let m = keys.exec(text); m; m = keys.exec(text))
    marks.push({ key: m[1] ?? '', start: m.index, end: keys.lastIndex });
  marks.forEach((mark, i) => {
    out[mark.key] = text.slice(mark.end, marks[i + 1]?.start ?? text.length);
  });
  return out;
}

function field(user: string, index: number): string {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  const value = line?.split(':')[index];
  if (value === undefined) throw new Error(`no system user ${user}`);
  return value;
}
