// Real DNS servers on loopback for the integration tests: NSD (authoritative, /usr/sbin/nsd) serving the
// zones a test gives, Unbound (/usr/sbin/unbound, recursive) resolving them through stub zones as it
// would any delegation, and what real networks add in between: a name server that answers late (a UDP
// proxy that holds each datagram) and one that never answers (a socket that swallows them).
// Each server runs in its own temporary directory with its own configuration, on the address it is given
// (a 127.x.y.z of the caller's range); stop() ends it and removes the directory. A server that cannot
// start throws (with its log): a test needing it fails, never skips. KEEP_DNS_DIRS=1 keeps the
// directories (configurations and logs: Unbound's at verbosity 1) after stop() for a look.
//
//   const nsd = await startAuthoritative({ address: '127.0.53.2', zones: { 'slow.example': zone } });
//   const slow = await startDelayProxy({ address: '127.0.53.3', upstream: nsd, delayMs: 1000 });
//   const unbound = await startUnbound({ address: '127.0.53.1', stubZones: { 'slow.example': [slow] } });
//   // DNS_SERVERS = unbound.server ("127.0.53.1:53")
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Where a DNS server listens. */
export interface DnsEndpoint {
  address: string;
  port: number;
}

export interface RunningDns extends DnsEndpoint {
  /** "address:port", as DNS_SERVERS takes it. */
  server: string;
  stop(): Promise<void>;
}

const NSD = '/usr/sbin/nsd';
const UNBOUND = '/usr/sbin/unbound';

/** A zone file's text: `$ORIGIN` and `$TTL` are added; records are relative to the origin. */
export type ZoneText = string;

export interface AuthoritativeOptions {
  address: string;
  /** Default 53 (each engineer's loopback range is their own). */
  port?: number;
  /** Zone origin (no trailing dot) -> its records, e.g. `@ SOA ...`, `@ NS ns1`, `@ MX 10 mx1`. */
  zones: Record<string, ZoneText>;
}

/**
 * A zone's text with a SOA and an NS at the server's own name when the caller gave none, so a test
 * writes only the records it is about.
 */
function zoneFile(origin: string, records: ZoneText): string {
  const lines = [`$ORIGIN ${origin}.`, '$TTL 300'];
  if (!/\bSOA\b/.test(records))
    lines.push(`@ IN SOA ns.${origin}. hostmaster.${origin}. 1 3600 600 86400 300`);
  if (!/\bNS\b/.test(records)) lines.push(`@ IN NS ns.${origin}.`);
  lines.push(records.trim(), '');
  return lines.join('\n');
}

/** NSD serving `zones` on address:port, started with its own nsd.conf, zonesdir, pidfile and database off. */
export async function startAuthoritative(options: AuthoritativeOptions): Promise<RunningDns> {
  const port = options.port ?? 53;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-nsd-'));
  const zoneEntries = Object.entries(options.zones).map(([origin, records], index) => {
    const file = `zone${index}.zone`;
    writeFileSync(path.join(dir, file), zoneFile(origin, records));
    return `zone:\n  name: "${origin}"\n  zonefile: "${file}"\n`;
  });
  const conf = [
    'server:',
    `  ip-address: ${options.address}@${port}`,
    `  port: ${port}`,
    '  do-ip6: no',
    '  server-count: 1',
    `  zonesdir: "${dir}"`,
    `  pidfile: "${dir}/nsd.pid"`,
    `  xfrdfile: "${dir}/xfrd.state"`,
    `  zonelistfile: "${dir}/zone.list"`,
    '  database: ""',
    '  username: ""',
    '  chroot: ""',
    `  logfile: "${dir}/nsd.log"`,
    '  verbosity: 1',
    'remote-control:',
    '  control-enable: no',
    ...zoneEntries,
  ].join('\n');
  writeFileSync(path.join(dir, 'nsd.conf'), conf);
  const child = spawn(NSD, ['-d', '-c', path.join(dir, 'nsd.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  return running('nsd', child, dir, { address: options.address, port }, path.join(dir, 'nsd.log'));
}

export interface UnboundOptions {
  address: string;
  port?: number;
  /** Zone (no trailing dot) -> the name servers Unbound asks for it, as a delegation's NS set would be. */
  stubZones: Record<string, DnsEndpoint[]>;
  /** More `server:` lines (e.g. `val-log-level: 2`), appended as they are. */
  serverLines?: string[];
}

/**
 * Unbound as a recursive resolver on address:port (in the foreground, `unbound -d -c conf`): every zone
 * of `stubZones` is resolved from its servers (iteratively, with Unbound's own retries, timeouts and
 * server selection); anything else goes nowhere (no root hints reach the network here).
 */
export async function startUnbound(options: UnboundOptions): Promise<RunningDns> {
  const port = options.port ?? 53;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-unbound-'));
  const stubs = Object.entries(options.stubZones).map(([zone, servers]) =>
    ['stub-zone:', `  name: "${zone}."`, ...servers.map((s) => `  stub-addr: ${s.address}@${s.port}`)].join(
      '\n',
    ),
  );
  // the stub zones' top-level names may be ones Unbound blocks by default (RFC 6761's test., ...)
  const tlds = [...new Set(Object.keys(options.stubZones).map((z) => z.split('.').pop()!))];
  const conf = [
    'server:',
    `  interface: ${options.address}@${port}`,
    `  port: ${port}`,
    '  do-ip6: no',
    '  do-daemonize: no',
    '  num-threads: 1',
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${dir}/unbound.pid"`,
    '  use-syslog: no',
    `  logfile: "${dir}/unbound.log"`,
    '  verbosity: 1',
    '  access-control: 127.0.0.0/8 allow',
    // the stub servers are on loopback, which Unbound never asks by default
    '  do-not-query-localhost: no',
    // no trust anchor: the test zones are unsigned (an insecure delegation, as most of the world's)
    '  module-config: "iterator"',
    ...tlds.map((tld) => `  local-zone: "${tld}." nodefault`),
    ...(options.serverLines ?? []).map((line) => `  ${line}`),
    'remote-control:',
    '  control-enable: no',
    ...stubs,
  ].join('\n');
  writeFileSync(path.join(dir, 'unbound.conf'), conf);
  const child = spawn(UNBOUND, ['-d', '-c', path.join(dir, 'unbound.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return running('unbound', child, dir, { address: options.address, port }, path.join(dir, 'unbound.log'));
}

export interface DelayProxyOptions {
  address: string;
  port?: number;
  upstream: DnsEndpoint;
  /** How long each query is held before it is passed on (its answer comes back at once). */
  delayMs: number;
}

export interface RunningProxy extends RunningDns {
  /** Queries received so far. */
  readonly queries: number;
}

/**
 * A name server that answers late: each UDP query is held `delayMs`, then passed to `upstream` from a
 * socket of its own, and the answer relayed to the asker. (NSD cannot be told to wait.)
 */
export async function startDelayProxy(options: DelayProxyOptions): Promise<RunningProxy> {
  const socket = dgram.createSocket('udp4');
  const pending = new Set<dgram.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let queries = 0;
  socket.on('message', (query, from) => {
    queries++;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const out = dgram.createSocket('udp4');
      pending.add(out);
      const done = () => {
        pending.delete(out);
        out.close();
      };
      out.on('message', (answer) => {
        socket.send(answer, from.port, from.address);
        done();
      });
      out.on('error', done);
      out.send(query, options.upstream.port, options.upstream.address);
      setTimeout(() => pending.has(out) && done(), 10_000).unref();
    }, options.delayMs);
    timers.add(timer);
  });
  await bind(socket, options.address, options.port ?? 53);
  const port = socket.address().port;
  return {
    address: options.address,
    port,
    server: `${options.address}:${port}`,
    get queries() {
      return queries;
    },
    stop: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of pending) s.close();
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

/**
 * A name server that is down without saying so: its UDP and TCP ports take queries and never answer
 * (no ICMP "port unreachable", which a resolver would read as a fast failure).
 */
export async function startDeadServer(options: { address: string; port?: number }): Promise<RunningProxy> {
  const socket = dgram.createSocket('udp4');
  let queries = 0;
  socket.on('message', () => queries++);
  await bind(socket, options.address, options.port ?? 53);
  const port = socket.address().port;
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, options.address, () => resolve());
  });
  return {
    address: options.address,
    port,
    server: `${options.address}:${port}`,
    get queries() {
      return queries;
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

function bind(socket: dgram.Socket, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, address, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

/**
 * Whether `endpoint` answers an A query for `localhost.` over UDP within timeoutMs: Unbound answers it
 * from its own local zone, NSD refuses it; either is a running server's sign.
 */
async function answers(endpoint: DnsEndpoint, timeoutMs: number): Promise<boolean> {
  const header = [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
  const query = Buffer.from([...header, 9, ...Buffer.from('localhost'), 0, 0, 1, 0, 1]);
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      socket.on('message', () => {
        clearTimeout(timer);
        resolve(true);
      });
      socket.on('error', () => undefined);
      socket.send(query, endpoint.port, endpoint.address);
    });
  } finally {
    socket.close();
  }
}

/** Waits until the child answers DNS (or throws with its log), and gives it a stop that waits for its exit. */
async function running(
  name: string,
  child: ChildProcess,
  dir: string,
  endpoint: DnsEndpoint,
  logFile: string,
): Promise<RunningDns> {
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const log = () => {
    let file = '';
    try {
      file = readFileSync(logFile, 'utf8');
    } catch {
      // not written yet
    }
    return `${output}${file}`.trim();
  };
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(killer);
    }
    if (!process.env.KEEP_DNS_DIRS) rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 50; attempt++) {
    if (exited) break;
    if (await answers(endpoint, 200)) {
      return { ...endpoint, server: `${endpoint.address}:${endpoint.port}`, stop };
    }
  }
  const text = log();
  await stop();
  throw new Error(`${name} did not start on ${endpoint.address}:${endpoint.port}:\n${text}`);
}
