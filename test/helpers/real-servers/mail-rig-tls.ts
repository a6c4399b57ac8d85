// The rig's own certificate authority and one server certificate for its IMAP and SMTP listeners, made with
// the openssl CLI (node:crypto makes keys but not certificates). A test trusts `caFile` through
// NODE_EXTRA_CA_CERTS (decisions: "Connected mailboxes") or passes `caPem` as its client's `ca`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './mail-rig-process';

export interface RigTls {
  caFile: string;
  caPem: string;
  certFile: string;
  keyFile: string;
}

/** Writes ca.crt, server.crt and server.key into `dir`; the server certificate names `ips` and `dnsNames`. */
export async function makeRigTls(dir: string, ips: string[], dnsNames: string[]): Promise<RigTls> {
  const caKey = join(dir, 'ca.key');
  const caFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'server.key');
  const csr = join(dir, 'server.csr');
  const certFile = join(dir, 'server.crt');
  const ext = join(dir, 'server.ext');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    caKey,
    '-out',
    caFile,
    '-days',
    '3',
    '-subj',
    '/O=mailvet test/CN=mailvet mail-rig test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', [
    'req',
    '-new',
    ...ec,
    '-keyout',
    keyFile,
    '-out',
    csr,
    '-subj',
    `/CN=${dnsNames[0] ?? ips[0]}`,
  ]);
  const alt = [...ips.map((ip) => `IP:${ip}`), ...dnsNames.map((name) => `DNS:${name}`)].join(',');
  writeFileSync(
    ext,
    `subjectAltName=${alt}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caFile,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    certFile,
    '-days',
    '2',
    '-extfile',
    ext,
  ]);
  return { caFile, caPem: readFileSync(caFile, 'utf8'), certFile, keyFile };
}
