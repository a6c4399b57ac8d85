// Postfix for the rig, one instance with its own config and queue directories: submission (587 STARTTLS,
// 465 implicit TLS) for authenticated mailboxes (SASL through Dovecot), whose mail rspamd signs and which an
// after-queue content_filter relays, from the submission address, to the rig's own MX listener; there
// rspamd scans it as inbound mail and Postfix delivers it to Dovecot over LMTP (virtual mailbox domains).
// Docs: postfix.org SASL_README (Dovecot SASL), MILTER_README, FILTER_README (content_filter), VIRTUAL_README,
// LMTP_README, postconf(5) maillog_file, TLS_README.
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  adoptProcessGroup,
  startServerProcess,
  waitForListening,
  type ServerProcess,
} from './mail-rig-process';

export interface PostfixOptions {
  /** Receives each server process as it is spawned (for stopping it whatever happens next). */
  track: (server: ServerProcess) => void;
  dir: string;
  /** The submission side's name (also the relay's HELO) and the MX's: different, or the relay sees a loop. */
  hostname: string;
  mxHostname: string;
  submissionHost: string;
  submissionPort: number;
  submissionsPort: number;
  mxHost: string;
  mxPort: number;
  domains: string[];
  mailboxes: string[];
  milter: string;
  lmtp: { host: string; port: number };
  saslAuth: { host: string; port: number };
  certFile: string;
  keyFile: string;
}

export interface Postfix {
  server: ServerProcess;
  logFile: string;
}

const submissionOptions = (o: PostfixOptions) => [
  '-o smtpd_tls_security_level=encrypt',
  '-o smtpd_tls_auth_only=yes',
  '-o smtpd_sasl_auth_enable=yes',
  '-o smtpd_client_restrictions=permit_sasl_authenticated,reject',
  '-o smtpd_relay_restrictions=permit_sasl_authenticated,reject',
  '-o smtpd_sender_restrictions=reject_sender_login_mismatch',
  `-o smtpd_sender_login_maps=texthash:${join(o.dir, 'conf', 'sender_logins')}`,
  `-o smtpd_milters=${o.milter}`,
  '-o milter_macro_daemon_name=ORIGINATING',
  `-o content_filter=mxrelay:[${o.mxHost}]:${o.mxPort}`,
];

function masterCf(o: PostfixOptions): string {
  const indent = (lines: string[]) => lines.map((l) => `  ${l}`).join('\n');
  return `# mail-rig Postfix master.cf: chroot off everywhere (the rig's paths are absolute temp paths).
${o.submissionHost}:${o.submissionPort} inet n - n - - smtpd
  -o syslog_name=postfix/submission
${indent(submissionOptions(o))}
${o.submissionHost}:${o.submissionsPort} inet n - n - - smtpd
  -o syslog_name=postfix/submissions
  -o smtpd_tls_wrappermode=yes
${indent(submissionOptions(o))}
${o.mxHost}:${o.mxPort} inet n - n - - smtpd
  -o syslog_name=postfix/mx
  -o myhostname=${o.mxHostname}
  -o smtpd_milters=${o.milter}
  -o cleanup_service_name=mxcleanup
mxcleanup unix n - n - 0 cleanup
  -o header_checks=regexp:${join(o.dir, 'conf', 'mx_header_checks')}
mxrelay unix - - n - - smtp
  -o syslog_name=postfix/mxrelay
  -o smtp_bind_address=${o.submissionHost}
pickup unix n - n 60 1 pickup
cleanup unix n - n - 0 cleanup
qmgr unix n - n 300 1 qmgr
tlsmgr unix - - n 1000? 1 tlsmgr
rewrite unix - - n - - trivial-rewrite
bounce unix - - n - 0 bounce
defer unix - - n - 0 bounce
trace unix - - n - 0 bounce
verify unix - - n - 1 verify
flush unix n - n 1000? 0 flush
proxymap unix - - n - - proxymap
proxywrite unix - - n - 1 proxymap
smtp unix - - n - - smtp
relay unix - - n - - smtp
showq unix n - n - - showq
error unix - - n - - error
retry unix - - n - - error
discard unix - - n - - discard
lmtp unix - - n - - lmtp
anvil unix - - n - 1 anvil
scache unix - - n - 1 scache
postlog unix-dgram n - n - 1 postlogd
`;
}

function mainCf(o: PostfixOptions, logFile: string): string {
  return `# mail-rig Postfix main.cf
compatibility_level = 3.6
queue_directory = ${join(o.dir, 'queue')}
data_directory = ${join(o.dir, 'data')}
mail_owner = postfix
setgid_group = postdrop
myhostname = ${o.hostname}
mydomain = ${o.hostname}
myorigin = $myhostname
mydestination =
local_recipient_maps =
alias_maps =
alias_database =
# Each listener names its own address in master.cf; the 127.0.36.x addresses are not interface addresses.
inet_interfaces = all
inet_protocols = ipv4
mynetworks = 192.0.2.254/32
smtpd_peername_lookup = no
smtp_dns_support_level = disabled
lmtp_dns_support_level = disabled
biff = no
append_dot_mydomain = no
maillog_file = ${logFile}
maillog_file_prefixes = ${o.dir}
virtual_mailbox_domains = ${o.domains.join(' ')}
virtual_mailbox_maps = texthash:${join(o.dir, 'conf', 'vmailbox')}
virtual_transport = lmtp:inet:${o.lmtp.host}:${o.lmtp.port}
smtpd_sasl_type = dovecot
smtpd_sasl_path = inet:${o.saslAuth.host}:${o.saslAuth.port}
smtpd_tls_cert_file = ${o.certFile}
smtpd_tls_key_file = ${o.keyFile}
smtpd_tls_security_level = may
smtpd_relay_restrictions = permit_sasl_authenticated, reject_unauth_destination
milter_protocol = 6
milter_default_action = tempfail
milter_mail_macros = i {mail_addr} {client_addr} {client_name} {auth_authen} {auth_type}
`;
}

export async function startPostfix(o: PostfixOptions): Promise<Postfix> {
  const { dir, track } = o;
  mkdirSync(join(dir, 'queue'), { recursive: true });
  mkdirSync(join(dir, 'data'), { recursive: true, mode: 0o700 });
  // Postfix keeps its locks and TLS caches in data_directory as its mail_owner.
  chownSync(join(dir, 'data'), postfixId(2), postfixId(3));
  chmodSync(dir, 0o755);
  const logFile = join(dir, 'postfix.log');
  // The config directory holds only configuration: `postfix check` walks it expecting root-owned files, so
  // the queue and data directories (owned by postfix) live beside it, not in it.
  const conf = join(dir, 'conf');
  mkdirSync(conf, { recursive: true });
  writeFileSync(join(conf, 'main.cf'), mainCf(o, logFile));
  writeFileSync(join(conf, 'master.cf'), masterCf(o));
  writeFileSync(join(conf, 'vmailbox'), o.mailboxes.map((m) => `${m.toLowerCase()} ok\n`).join(''));
  writeFileSync(
    join(conf, 'sender_logins'),
    o.mailboxes.map((m) => `${m.toLowerCase()} ${m.toLowerCase()}\n`).join(''),
  );
  // Spam verdicts from outside are not trusted: the MX drops them and rspamd adds its own.
  writeFileSync(join(conf, 'mx_header_checks'), '/^X-Spam(d-Result)?:/ IGNORE\n');
  // postfix(1) reports only to syslog unless stderr is a terminal; `script` gives it one, so a failing start
  // says why in postfix.out.
  const starter = startServerProcess(
    'postfix',
    'script',
    ['-qec', `postfix -c ${conf} start-fg`, '/dev/null'],
    join(dir, 'postfix.out'),
    track,
  );
  // master(8) makes itself a session leader, out of the starter's process group: stop it by its pid file.
  const pidFile = join(dir, 'queue', 'pid', 'master.pid');
  const deadline = Date.now() + 15_000;
  let masterPid = NaN;
  while (!Number.isInteger(masterPid) || masterPid <= 0) {
    if (Date.now() > deadline)
      throw new Error(`postfix master never wrote ${pidFile}:\n${starter.output()}\n${tailOf(logFile)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    masterPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN;
  }
  const server = adoptProcessGroup('postfix master', masterPid, () => tailOf(logFile), track);
  await Promise.all([
    waitForListening(server, o.submissionHost, o.submissionPort),
    waitForListening(server, o.submissionHost, o.submissionsPort),
    waitForListening(server, o.mxHost, o.mxPort),
  ]);
  return { server, logFile };
}

function postfixId(index: 2 | 3): number {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postfix:'));
  const value = line?.split(':')[index];
  if (value === undefined) throw new Error('no system user postfix (is the postfix package installed?)');
  return Number(value);
}

function tailOf(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-30).join('\n') : '';
}
