// Stock Exim 4 (Debian's exim4 4.96, unpacked at /opt/mailvet-mtas/exim4) as a probe target on one
// loopback address: its own config (-C), spool and log directories, the recipient ACL of the default
// configuration, mailboxes from lsearch files. The log is parsed to count what the prober did.
//
// The config follows the default configuration Exim ships (exim4-base examples/example.conf, "The
// default configuration file" chapter of the Exim specification:
// https://www.exim.org/exim-html-current/doc/html/spec_html/ch-the_default_configuration_file.html);
// what differs, and why:
// - local_domains are the test's domains; relay_from_hosts is empty (the stock `localhost` would take
//   the prober, which connects from loopback, for a submission client and skip recipient checks);
// - host_lookup and rfc1413_hosts are empty: this machine has no DNS of its own, and the lookups would
//   only delay each connection; TLS is not offered (no certificate is configured);
// - the routers: a redirect router whose `:fail:` entries refuse a mailbox (spec, "The redirect router",
//   allow_fail), then an accept router for the mailboxes listed (lsearch*@: `*@domain` is a catch-all),
//   instead of the system users and /etc/aliases;
// - smtp_accept_max_per_host (spec, "Main configuration", SMTP connection control) limits sessions from
//   one client to the prober's own limit, so a breach shows as a refused connection;
// - a `warn logwrite` first in the RCPT ACL notes each RCPT with its $rcpt_count: the counting this test
//   does on the server side (the deny that follows is the default configuration's own, verbatim).
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnMta, tail, waitForSmtp, type MtaProcess, type TargetMailboxes } from './mta-process';

const EXIM_BINARY = '/opt/mailvet-mtas/exim4/usr/sbin/exim4';

export interface EximOptions extends TargetMailboxes {
  dir: string;
  host: string;
  port: number;
  /** smtp_accept_max_per_host. */
  maxPerHost: number;
}

export interface Exim {
  stop(): Promise<void>;
  log(): string;
  counts(): EximCounts;
}

export interface EximCounts {
  /** The most sessions open at once (Exim's own "TCP/IP connection count"). */
  maxConnections: number;
  /** Connections refused as too many from one host. */
  refusedConnections: number;
  /** RCPT commands per address. */
  rcpts: Map<string, number>;
  /** The most RCPT in one message envelope ($rcpt_count). */
  maxRcptCount: number;
  /** "Rejected for too many bad recipients" replies. */
  tooManyBad: number;
  /** Messages received ("<=" lines): must be none, the prober never sends DATA. */
  messages: number;
}

function config(o: EximOptions): string {
  return `# mailvet real-MTA probe target (see exim.ts for what differs from the default configuration)
primary_hostname = mx.${o.domain}
exim_user = nobody
exim_group = nogroup
never_users = root
spool_directory = ${join(o.dir, 'spool')}
log_file_path = ${join(o.dir, 'log')}/%slog
log_selector = +smtp_connection
daemon_smtp_ports = ${o.port}
local_interfaces = ${o.host}
domainlist local_domains = ${[o.domain, o.catchAllDomain, o.sender.split('@')[1]].join(' : ')}
domainlist relay_to_domains =
hostlist   relay_from_hosts =
acl_smtp_rcpt = acl_check_rcpt
host_lookup =
rfc1413_hosts =
tls_advertise_hosts =
smtp_accept_max_per_host = ${o.maxPerHost}
ignore_bounce_errors_after = 2d
timeout_frozen_after = 7d

begin acl

acl_check_rcpt:
  warn    logwrite      = RCPT <$local_part@$domain> rcpt_count=$rcpt_count
  accept  hosts         = :
  deny    message       = Restricted characters in address
          domains       = +local_domains
          local_parts   = ^[.] : ^.*[@%!/|]
  accept  local_parts   = postmaster
          domains       = +local_domains
  require verify        = sender
  deny    condition     = \${if and {\\
                        {>{$rcpt_count}{10}}\\
                        {<{$recipients_count}{\${eval:$rcpt_count/2}}} }}
          message       = Rejected for too many bad recipients
          logwrite      = REJECT [$sender_host_address]: bad recipient count high [\${eval:$rcpt_count-$recipients_count}]
  accept  hosts         = +relay_from_hosts
          control       = submission
  require message       = relay not permitted
          domains       = +local_domains : +relay_to_domains
  require verify        = recipient
  accept

begin routers

refused:
  driver = redirect
  domains = +local_domains
  allow_fail
  data = \${lookup{$local_part@$domain}lsearch{${join(o.dir, 'refused')}}}

mailboxes:
  driver = accept
  domains = +local_domains
  condition = \${lookup{$local_part@$domain}lsearch*@{${join(o.dir, 'mailboxes')}}{yes}{no}}
  transport = mailbox

begin transports

mailbox:
  driver = appendfile
  file = ${join(o.dir, 'mail')}/$local_part@$domain
  user = nobody
`;
}

export async function startExim(o: EximOptions): Promise<Exim> {
  // exim drops to exim_user: its directories must be reachable by it
  chmodSync(o.dir, 0o755);
  for (const d of ['spool', 'log', 'mail']) {
    mkdirSync(join(o.dir, d), { recursive: true });
    chownSync(join(o.dir, d), 65534, 65534);
  }
  writeFileSync(join(o.dir, 'exim.conf'), config(o));
  writeFileSync(
    join(o.dir, 'refused'),
    [...o.disabled, ...o.catchAllRefused]
      .map((a) => `${a}: :fail: 5.2.1 This mailbox is disabled\n`)
      .join(''),
  );
  writeFileSync(
    join(o.dir, 'mailboxes'),
    [...o.live, o.sender, `*@${o.catchAllDomain}`].map((a) => `${a}:\n`).join(''),
  );
  const logFile = join(o.dir, 'log', 'mainlog');
  const out = join(o.dir, 'exim.out');
  // -bdf: the daemon in the foreground (stopped by its pid); -q not given: no queue runs
  const proc: MtaProcess = spawnMta('exim', EXIM_BINARY, ['-C', join(o.dir, 'exim.conf'), '-bdf'], out);
  await waitForSmtp(o.host, o.port, () => `${tail(out)}\n${tail(logFile)}`).catch(async (e: unknown) => {
    await proc.stop();
    throw e;
  });
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    stop: () => proc.stop(),
    log,
    counts: () => {
      const text = log();
      const rcpts = new Map<string, number>();
      let maxRcptCount = 0;
      for (const m of text.matchAll(/RCPT <([^>]*)> rcpt_count=(\d+)/g)) {
        rcpts.set(m[1]!, (rcpts.get(m[1]!) ?? 0) + 1);
        maxRcptCount = Math.max(maxRcptCount, Number(m[2]));
      }
      return {
        maxConnections: Math.max(
          0,
          ...[...text.matchAll(/connection count = (\d+)/g)].map((m) => Number(m[1])),
        ),
        refusedConnections: (
          text.match(/too many connections from that IP address|Connection from .* refused: too many/gi) ?? []
        ).length,
        rcpts,
        maxRcptCount,
        tooManyBad: (text.match(/bad recipient count high/g) ?? []).length,
        messages: (text.match(/ <= /g) ?? []).length,
      };
    },
  };
}
