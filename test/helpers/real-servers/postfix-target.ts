// Stock Postfix (Debian's postfix 3.7) with postgrey as a probe target on one loopback address: its own
// config directory (postfix -c), queue and data directories, virtual mailbox domains, the anvil and
// error limits of postconf(5). The maillog is parsed to count what the prober did.
//
// Configured as the documentation describes (https://www.postfix.org/postconf.5.html,
// https://www.postfix.org/VIRTUAL_README.html, https://www.postfix.org/SMTPD_POLICY_README.html
// "Greylisting", postgrey(8)):
// - virtual_mailbox_domains / virtual_mailbox_maps list the live mailboxes (`@domain` is a catch-all,
//   virtual(5)); smtpd_reject_unlisted_recipient (on by default) refuses the others with 550 5.1.1;
// - check_recipient_access refuses the disabled mailboxes with "550 5.2.1 Mailbox disabled" (access(5));
// - check_policy_service asks postgrey, after reject_unauth_destination (postgrey's own README);
// - anvil(8): smtpd_client_connection_count_limit sessions at once per client, and no exception for
//   the loopback client (smtpd_client_event_limit_exceptions, which defaults to $mynetworks);
// - smtpd_error_sleep_time / smtpd_soft_error_limit / smtpd_hard_error_limit: replies slow down after
//   errors, and the session ends with "421 4.7.0 Error: too many errors" past the hard limit;
// - the listener names the test's address in master.cf (inet_interfaces = all, as the loopback
//   addresses are not interface addresses); nothing is delivered or relayed (no DNS, no transports used).
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { spawnMta, tail, waitForSmtp, type MtaProcess, type TargetMailboxes } from './mta-process';

export interface PostfixTargetOptions extends TargetMailboxes {
  dir: string;
  host: string;
  port: number;
  /** postgrey's port on `host`, and its --delay (seconds). */
  postgreyPort: number;
  greylistSeconds: number;
  /** smtpd_client_connection_count_limit. */
  connectionLimit: number;
  errorSleepSeconds: number;
  softErrorLimit: number;
  hardErrorLimit: number;
}

export interface PostfixTarget {
  stop(): Promise<void>;
  log(): string;
  counts(): PostfixCounts;
}

export interface PostfixCounts {
  /** The most sessions open at once, from connect / disconnect lines in order. */
  maxOpen: number;
  /** Connections anvil refused as one too many. */
  refusedConnections: number;
  /** Sessions ended for too many errors. */
  tooManyErrors: number;
  /** RCPT refusals per address with their codes ("550 5.1.1"). */
  refusals: Map<string, string[]>;
  /** Messages received (cleanup took one) or DATA commands seen: must be none. */
  messages: number;
  dataCommands: number;
}

const passwd = (user: string): { uid: number; gid: number } => {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`no system user ${user} (is the package installed? .ci/install-servers.sh)`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
};

/** Debian's master.cf services Postfix needs to run, chroot off (the queue is a test directory). */
function masterCf(o: PostfixTargetOptions): string {
  return `# mailvet real-MTA probe target: the stock services, the SMTP listener on the test's address
${o.host}:${o.port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`;
}

function mainCf(o: PostfixTargetOptions, logFile: string): string {
  const conf = join(o.dir, 'conf');
  return `# mailvet real-MTA probe target (see postfix-target.ts)
compatibility_level = 3.6
queue_directory = ${join(o.dir, 'queue')}
data_directory = ${join(o.dir, 'data')}
mail_owner = postfix
setgid_group = postdrop
myhostname = mx.${o.domain}
mydestination =
local_recipient_maps =
alias_maps =
alias_database =
inet_interfaces = all
inet_protocols = ipv4
mynetworks = 192.0.2.254/32
smtpd_peername_lookup = no
smtp_dns_support_level = disabled
maillog_file = ${logFile}
maillog_file_prefixes = ${o.dir}
virtual_mailbox_domains = ${o.domain}, ${o.catchAllDomain}, ${o.sender.split('@')[1]}
virtual_mailbox_maps = texthash:${join(conf, 'vmailbox')}
virtual_mailbox_base = ${join(o.dir, 'vmail')}
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
smtpd_recipient_restrictions = check_recipient_access texthash:${join(conf, 'refused')}, reject_unauth_destination, reject_unlisted_recipient, check_policy_service inet:${o.host}:${o.postgreyPort}
smtpd_client_connection_count_limit = ${o.connectionLimit}
smtpd_client_event_limit_exceptions =
smtpd_error_sleep_time = ${o.errorSleepSeconds}s
smtpd_soft_error_limit = ${o.softErrorLimit}
smtpd_hard_error_limit = ${o.hardErrorLimit}
`;
}

export async function startPostfixTarget(o: PostfixTargetOptions): Promise<PostfixTarget> {
  const conf = join(o.dir, 'conf');
  for (const d of ['conf', 'queue', 'data', 'vmail', 'postgrey'])
    mkdirSync(join(o.dir, d), { recursive: true });
  chmodSync(o.dir, 0o755);
  const postfix = passwd('postfix');
  chownSync(join(o.dir, 'data'), postfix.uid, postfix.gid);
  chownSync(join(o.dir, 'postgrey'), passwd('postgrey').uid, passwd('postgrey').gid);
  const logFile = join(o.dir, 'maillog');
  writeFileSync(join(conf, 'main.cf'), mainCf(o, logFile));
  writeFileSync(join(conf, 'master.cf'), masterCf(o));
  writeFileSync(
    join(conf, 'vmailbox'),
    [...o.live, o.sender].map((a) => `${a} ${a}/\n`).join('') + `@${o.catchAllDomain} catchall/\n`,
  );
  writeFileSync(
    join(conf, 'refused'),
    [...o.disabled, ...o.catchAllRefused].map((a) => `${a} 550 5.2.1 Mailbox disabled\n`).join(''),
  );
  const greyOut = join(o.dir, 'postgrey.out');
  // postgrey in the foreground (no --daemonize), stopped by its pid
  const grey: MtaProcess = spawnMta(
    'postgrey',
    '/usr/sbin/postgrey',
    [
      `--inet=${o.host}:${o.postgreyPort}`,
      `--delay=${o.greylistSeconds}`,
      `--dbdir=${join(o.dir, 'postgrey')}`,
      `--pidfile=${join(o.dir, 'postgrey', 'pid')}`,
    ],
    greyOut,
  );
  const out = join(o.dir, 'postfix.out');
  // start-fg: the master in the foreground; postfix(1) reports to syslog unless stderr is a terminal,
  // `script` gives it one so a failing start says why in postfix.out
  const master: MtaProcess = spawnMta(
    'postfix',
    'script',
    ['-qec', `postfix -c ${conf} start-fg`, '/dev/null'],
    out,
  );
  const stop = async () => {
    // master(8) leaves the starter's process group: stop it the documented way, by its config
    if (existsSync(join(o.dir, 'queue', 'pid', 'master.pid')))
      try {
        execFileSync('postfix', ['-c', conf, 'stop'], { stdio: 'ignore' });
      } catch {
        // already stopped
      }
    await master.stop();
    await grey.stop();
  };
  await waitForSmtp(o.host, o.port, () => `${tail(out)}\n${tail(logFile)}\n${tail(greyOut)}`).catch(
    async (e: unknown) => {
      await stop();
      throw e;
    },
  );
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  return {
    stop,
    log,
    counts: () => {
      const text = log();
      let open = 0;
      let maxOpen = 0;
      for (const m of text.matchAll(/smtpd\[\d+\]: (connect|disconnect) from /g)) {
        open += m[1] === 'connect' ? 1 : -1;
        maxOpen = Math.max(maxOpen, open);
      }
      const refusals = new Map<string, string[]>();
      for (const m of text.matchAll(/NOQUEUE: reject: RCPT from [^:]*: (\d{3} \d\.\d\.\d) <([^>]*)>/g))
        refusals.set(m[2]!, [...(refusals.get(m[2]!) ?? []), m[1]!]);
      return {
        maxOpen,
        refusedConnections: (text.match(/Connection concurrency limit exceeded/g) ?? []).length,
        tooManyErrors: (text.match(/too many errors after RCPT/g) ?? []).length,
        refusals,
        messages: (text.match(/cleanup\[\d+\]: [0-9A-F]+: message-id=/g) ?? []).length,
        dataCommands: (text.match(/ data=\d/g) ?? []).length,
      };
    },
  };
}
