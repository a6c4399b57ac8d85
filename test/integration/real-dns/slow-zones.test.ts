// The engine against real DNS: Unbound (recursive, stock settings) resolving zones that NSD serves, some
// of them behind a name server that answers a second late or one that never answers. What a resolver's
// patience must cover (issue #33): a slow but working zone resolves, a dead name server among an MX host
// zone's NS set costs no verdict, 20 MX hosts that all time out cost one timeout, not 20, and an MX
// written as an IP address is no mail server.
import { ValidationEngine } from '../../../functions/domain/validation';
import {
  startAuthoritative,
  startDeadServer,
  startDelayProxy,
  startUnbound,
  type RunningDns,
} from '../../helpers/real-servers/dns';

/** Loopback addresses of this file (the probe-dns range, 127.0.53.0/24). */
const at = (n: number) => `127.0.53.${n}`;

const deadMxHosts = Array.from({ length: 20 }, (_, i) => `mx${String(i + 1).padStart(2, '0')}.gone.example`);

/** The zones NSD serves; the MX hosts' addresses are loopback ones (ALLOW_PRIVATE_MX). */
const zones = {
  // its only name server answers a second late (a delay proxy in front of NSD)
  'slow.example': '@ MX 10 mx1\nmx1 A 127.0.53.40',
  // its MX host's zone is delegated (by the parent zone, served by NSD) to two name servers, one of
  // them dead (ns1), the other far away (ns2: a delay proxy answering 400 ms late)
  'lame.example': '@ MX 10 mx1.hosts.lame-parent.example.',
  'lame-parent.example': [
    'hosts NS ns1.hosts',
    'hosts NS ns2.hosts',
    'ns1.hosts A 127.0.53.4',
    'ns2.hosts A 127.0.53.6',
  ].join('\n'),
  // 20 MX hosts in a zone whose only name server is dead
  'many.example': deadMxHosts.map((h, i) => `@ MX ${10 + i} ${h}.`).join('\n'),
  // an MX target that is an address written as a name (RFC 5321 5.1 wants a host name), and one
  // beside a real host
  'ipmx.example': '@ MX 10 127.0.53.43.',
  'ipmx-and-host.example': '@ MX 5 127.0.53.43.\n@ MX 10 mx1\nmx1 A 127.0.53.44',
  // the control: answers at once
  'fast.example': '@ MX 10 mx1\nmx1 A 127.0.53.45',
};

const servers: { stop(): Promise<void> }[] = [];
let unbound: RunningDns;

beforeAll(async () => {
  const nsd = await startAuthoritative({ address: at(2), zones });
  // the delegated MX host zone, on a server of its own (NSD would answer it from the parent otherwise)
  const hosts = await startAuthoritative({
    address: at(5),
    zones: {
      'hosts.lame-parent.example':
        '@ NS ns1\n@ NS ns2\nns1 A 127.0.53.4\nns2 A 127.0.53.6\nmx1 A 127.0.53.41\nmx2 A 127.0.53.42',
    },
  });
  const far = await startDelayProxy({ address: at(6), upstream: hosts, delayMs: 400 });
  servers.push(nsd, hosts, far);
  const slow = await startDelayProxy({ address: at(3), upstream: nsd, delayMs: 1000 });
  const dead = await startDeadServer({ address: at(4) });
  servers.push(slow, dead);
  unbound = await startUnbound({
    address: at(1),
    stubZones: {
      'slow.example': [slow],
      'lame.example': [nsd],
      'lame-parent.example': [nsd],
      'many.example': [nsd],
      'gone.example': [dead],
      'ipmx.example': [nsd],
      'ipmx-and-host.example': [nsd],
      'fast.example': [nsd],
    },
  });
  servers.unshift(unbound);
});

afterAll(async () => {
  for (const s of servers) await s.stop();
});

/** A fresh engine (no cache) on the settings' defaults: DNS_TIMEOUT_MS 5 s, the resolver Unbound. */
const engine = () => new ValidationEngine({ dnsServers: [unbound.server], allowPrivateMx: true });

it('resolves a domain whose only name server answers a second late: safe, not dns_timeout', async () => {
  const e = engine();
  // the resolver has seen fast answers first, as a busy validator's has
  expect((await e.validate('a@fast.example')).result.status).toBe('safe');
  const result = await e.validate('alice@slow.example');
  expect({ status: result.result.status, reason: result.result.reason }).toEqual({
    status: 'safe',
    reason: 'domain_ok',
  });
});

it('resolves an MX host whose zone has a dead name server beside a far one', async () => {
  const e = engine();
  expect((await e.validate('a@fast.example')).result.status).toBe('safe');
  const result = await e.validate('bob@lame.example');
  expect({ status: result.result.status, reason: result.result.reason }).toEqual({
    status: 'safe',
    reason: 'domain_ok',
  });
});

it('settles a domain with 20 MX hosts that all time out within one bound, well under 60 s', async () => {
  const e = engine();
  const started = performance.now();
  const result = await e.validate('carol@many.example');
  const elapsed = performance.now() - started;
  expect(result.result.status).toBe('some_risk');
  expect(['dns_timeout', 'dns_error']).toContain(result.result.reason);
  // one MX query and the hosts' queries at once: two DNS budgets (5 s each) and a margin, not 20
  expect(elapsed).toBeLessThan(15_000);
});

it('does not call an MX written as an IP address a mail server', async () => {
  const e = engine();
  const only = await e.validate('dave@ipmx.example');
  expect(only.result.status).not.toBe('safe');
  expect({ status: only.result.status, reason: only.result.reason }).toEqual({
    status: 'block_bounce_risk',
    reason: 'no_mail_server',
  });
  // beside a real host, the real host is the mail server
  const beside = await e.validate('erin@ipmx-and-host.example');
  expect({ status: beside.result.status, reason: beside.result.reason }).toEqual({
    status: 'safe',
    reason: 'domain_ok',
  });
});
