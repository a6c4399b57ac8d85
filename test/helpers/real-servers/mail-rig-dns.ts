// A minimal authoritative DNS (NSD) for the rig's mail domains, so rspamd looks SPF, DKIM and DMARC up
// in real zones. NSD configuration: nsd.conf(5) (Debian's nsd 4.6).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess, waitForListening, type ServerProcess } from './mail-rig-process';

export interface ZoneRecord {
  /** Relative to the zone ('@' for its apex). */
  name: string;
  type: 'A' | 'MX' | 'TXT' | 'NS' | 'PTR';
  /** TXT values are quoted and split into 255-byte strings here. */
  value: string;
}

export interface RigDns {
  host: string;
  port: number;
  server: ServerProcess;
}

function txt(value: string): string {
  const chunks: string[] = [];
  for (let at = 0; at < value.length; at += 255) chunks.push(`"${value.slice(at, at + 255)}"`);
  return `( ${chunks.join(' ')} )`;
}

function zoneFile(zone: string, host: string, records: ZoneRecord[]): string {
  const lines = [
    `$ORIGIN ${zone}.`,
    '$TTL 60',
    `@ IN SOA ns.${zone}. hostmaster.${zone}. ( 1 3600 600 86400 60 )`,
    `@ IN NS ns.${zone}.`,
    `ns IN A ${host}`,
    ...records.map((r) => `${r.name} IN ${r.type} ${r.type === 'TXT' ? txt(r.value) : r.value}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Starts NSD on `host:port` serving `zones` (zone name -> records) from files under `dir`. */
export async function startRigDns(
  dir: string,
  host: string,
  port: number,
  zones: Record<string, ZoneRecord[]>,
  track: (server: ServerProcess) => void,
): Promise<RigDns> {
  mkdirSync(dir, { recursive: true });
  const zoneConf: string[] = [];
  for (const [zone, records] of Object.entries(zones)) {
    writeFileSync(join(dir, `${zone}.zone`), zoneFile(zone, host, records));
    zoneConf.push(`zone:\n  name: "${zone}"\n  zonefile: "${join(dir, `${zone}.zone`)}"`);
  }
  const conf = join(dir, 'nsd.conf');
  writeFileSync(
    conf,
    [
      'server:',
      `  ip-address: ${host}`,
      `  port: ${port}`,
      '  username: ""',
      '  chroot: ""',
      `  zonesdir: "${dir}"`,
      '  database: ""',
      `  zonelistfile: "${join(dir, 'zone.list')}"`,
      `  xfrdfile: "${join(dir, 'xfrd.state')}"`,
      `  xfrdir: "${dir}"`,
      `  pidfile: "${join(dir, 'nsd.pid')}"`,
      `  logfile: "${join(dir, 'nsd.log')}"`,
      '  server-count: 1',
      '  verbosity: 1',
      '  hide-version: yes',
      'remote-control:',
      '  control-enable: no',
      ...zoneConf,
      '',
    ].join('\n'),
  );
  const server = startServerProcess('nsd', 'nsd', ['-d', '-c', conf], join(dir, 'nsd.out'), track);
  await waitForListening(server, host, port);
  return { host, port, server };
}
