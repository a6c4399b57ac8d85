// rspamd as the rig's spam filter: one milter proxy worker that scans itself (self_scan), signing DKIM for
// authenticated senders of the rig's signing domains and, on inbound mail, checking SPF, DKIM and DMARC
// against the rig's NSD. A DMARC failure under p=reject/quarantine becomes the "add header" action (rspamd
// dmarc module's `actions`), which adds `X-Spam: Yes`; Dovecot's sieve files that into Junk.
// Docs: rspamd.com/doc/workers/rspamd_proxy.html (milter, self_scan), /doc/modules/dmarc.html (actions),
// /doc/modules/dkim_signing.html (path, selector), /doc/modules/spf.html (check_local), /doc/configuration/options.html (dns).
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess, waitForListening, type ServerProcess } from './mail-rig-process';

export interface RspamdOptions {
  /** Receives each server process as it is spawned (for stopping it whatever happens next). */
  track: (server: ServerProcess) => void;
  dir: string;
  /** The milter listener (Postfix connects here). */
  host: string;
  port: number;
  /** The authoritative DNS every lookup goes to. */
  nameserver: { host: string; port: number };
  /** Domain -> PEM private key for DKIM signing of authenticated senders (selector `selector`). */
  dkimKeys: Record<string, string>;
  selector: string;
  /** The top-level domains of the rig's mail domains (for rspamd's public suffix list). */
  tlds: string[];
}

export interface Rspamd {
  milter: string;
  server: ServerProcess;
  logFile: string;
}

/** One scan result as rspamd logged it. */
export interface RspamdVerdict {
  messageId: string;
  action: string;
  score: number;
  required: number;
  symbols: string[];
  authenticatedUser: string;
}

// Modules that ask the internet (RBLs, URL lists, fuzzy storage, update checks) or need Redis state the rig
// does not keep; the verdict then rests on SPF, DKIM, DMARC and content rules alone.
const disabledModules = [
  'rbl',
  'surbl',
  'phishing',
  'fuzzy_check',
  'asn',
  'emails',
  'neural',
  'ratelimit',
  'greylist',
  'replies',
  'reputation',
  'url_redirector',
  'rspamd_update',
  'mx_check',
  'dcc',
  'history_redis',
  'hfilter',
  'bimi',
  'metric_exporter',
  'clickhouse',
  'elastic',
  'p0f',
  'antivirus',
  'external_services',
  'spamtrap',
  'once_received',
];

const rspamdUser = '_rspamd';
const hsCache = '/var/tmp/mailvet-rspamd-hs-cache';

export async function startRspamd(options: RspamdOptions): Promise<Rspamd> {
  const { dir, track } = options;
  const local = join(dir, 'local.d');
  const db = join(dir, 'db');
  const dkim = join(dir, 'dkim');
  for (const d of [dir, local, db, dkim]) mkdirSync(d, { recursive: true });
  const logFile = join(dir, 'rspamd.log');
  const tldFile = join(dir, 'effective_tld_names.dat');
  const ns = `${options.nameserver.host}:${options.nameserver.port}`;
  writeFileSync(
    join(dir, 'rspamd.conf'),
    `.include "$CONFDIR/common.conf"
options {
  pidfile = "${join(dir, 'rspamd.pid')}";
  .include "$CONFDIR/options.inc"
  .include(priority=1,duplicate=merge) "${join(local, 'options.inc')}"
}
logging {
  type = "file";
  filename = "${logFile}";
  level = "notice";
}
worker "rspamd_proxy" {
  bind_socket = "${options.host}:${options.port}";
  milter = yes;
  timeout = 120s;
  count = 1;
  upstream "local" {
    default = yes;
    self_scan = yes;
  }
  spam_header = "X-Spam";
}
`,
  );
  const confs: Record<string, string> = {
    // Loopback is "local" to rspamd; the rig's senders connect over loopback, so the checks must run anyway.
    'spf.conf': 'check_local = true;\ncheck_authed = false;\n',
    'dkim.conf': 'check_local = true;\ncheck_authed = false;\n',
    'dmarc.conf':
      'check_local = true;\ncheck_authed = false;\nactions { quarantine = "add_header"; reject = "add_header"; }\n',
    'dkim_signing.conf': `path = "${dkim}/$domain.$selector.key";\nselector = "${options.selector}";\nsign_local = false;\nsign_authenticated = true;\nallow_username_mismatch = true;\nuse_esld = false;\n`,
    'milter_headers.conf': 'use = ["authentication-results", "x-spamd-result"];\nskip_local = false;\n',
    'options.inc': `dns { nameserver = ["${ns}"]; timeout = 1s; retransmits = 2; }
local_addrs = [];
control_socket = "${join(db, 'rspamd.sock')} mode=0600";
# Compiled Hyperscan databases depend only on the rules, so rigs share them (hs_helper compiles them in
# the background after start).
hs_cache_dir = "${hsCache}";
# The public suffix list (9,600 suffixes) is compiled into one matcher before rspamd listens: 20-40 s of
# CPU on a loaded 2-core machine. The rig's mail only names its own domains, so a list of their TLDs
# (plus the common ones) gives the same registrable domains for DMARC alignment.
url_tld = "${tldFile}";
`,
  };
  for (const module of disabledModules) confs[`${module}.conf`] = 'enabled = false;\n';
  writeFileSync(tldFile, [...new Set([...options.tlds, 'com', 'net', 'org'])].map((t) => `${t}\n`).join(''));
  for (const [name, body] of Object.entries(confs)) writeFileSync(join(local, name), body);
  for (const [domain, pem] of Object.entries(options.dkimKeys)) {
    const file = join(dkim, `${domain}.${options.selector}.key`);
    writeFileSync(file, pem, { mode: 0o600 });
    chownSync(file, uid(rspamdUser), gid(rspamdUser));
  }
  mkdirSync(hsCache, { recursive: true });
  for (const d of [dir, db, dkim, hsCache]) chownSync(d, uid(rspamdUser), gid(rspamdUser));
  const server = startServerProcess(
    'rspamd',
    'rspamd',
    [
      '-f',
      '-c',
      join(dir, 'rspamd.conf'),
      '-u',
      rspamdUser,
      '-g',
      rspamdUser,
      '--var',
      `LOCAL_CONFDIR=${dir}`,
      '--var',
      `DBDIR=${db}`,
      '--var',
      `RUNDIR=${dir}`,
      '--var',
      `LOGDIR=${dir}`,
    ],
    join(dir, 'rspamd.out'),
    track,
  );
  await waitForListening(server, options.host, options.port, 20_000);
  return { milter: `inet:${options.host}:${options.port}`, server, logFile };
}

/** The scan results in rspamd's log, oldest first. */
export function rspamdVerdicts(logFile: string): RspamdVerdict[] {
  if (!existsSync(logFile)) return [];
  const text = readFileSync(logFile, 'utf8');
  const verdicts: RspamdVerdict[] = [];
  for (const line of text.split('\n')) {
    // rspamd_task_write_log: id: <mid>, ..., (default: F (add header): [7.10/15.00] [SYM(1.00){..},...]), ..., user: u
    const result = /\(default: [TF] \(([^)]+)\): \[(-?[\d.]+)\/(-?[\d.]+)\] \[([^\]]*)\]/.exec(line);
    if (!result) continue;
    const mid = /\bid: <([^>]*)>/.exec(line);
    const user = /\buser: ([^,\s]+)/.exec(line);
    verdicts.push({
      messageId: mid?.[1] ?? '',
      action: result[1] ?? '',
      score: Number(result[2]),
      required: Number(result[3]),
      symbols: (result[4] ?? '')
        .split(/,(?=[A-Z0-9_]+\()/)
        .map((s) => s.replace(/\(.*$/, ''))
        .filter(Boolean),
      authenticatedUser: user?.[1] ?? '',
    });
  }
  return verdicts;
}

function uid(user: string): number {
  return Number(passwdField(user, 2));
}
function gid(user: string): number {
  return Number(passwdField(user, 3));
}
function passwdField(user: string, index: number): string {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  const field = line?.split(':')[index];
  if (field === undefined) throw new Error(`no system user ${user} (is the rspamd package installed?)`);
  return field;
}
