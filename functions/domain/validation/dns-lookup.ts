// Can this domain receive mail? MX records (RFC 5321 5.1), A/AAAA as the implicit MX, null MX
// (RFC 7505), and NXDOMAIN, SERVFAIL and timeout told apart so a slow resolver never means "invalid".
import ipaddr from 'ipaddr.js';
import { createPatientResolver } from './patient-dns';
import type { DnsOutcome, MailHost, MxRecord } from './types';

/** The three queries the engine needs; node:dns Resolver satisfies it, tests and the benchmark fake it. */
export interface DnsClient {
  resolveMx(domain: string): Promise<MxRecord[]>;
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
}

export interface DnsFacts {
  dns: DnsOutcome;
  dnsDetail: string | null;
  mxRecords: MxRecord[];
  mailHost: MailHost | null;
}

/**
 * A node:dns resolver pointed at host:port servers (DNS_SERVERS) whose every question waits up to
 * `timeoutMs` (DNS_TIMEOUT_MS), asked again after each try's timeout, at most `tries` times
 * (patient-dns.ts).
 */
export function createResolver(servers: readonly string[], timeoutMs: number, tries?: number): DnsClient {
  return createPatientResolver(servers, timeoutMs, tries);
}

/** "host:port,host:port" -> ["host:port", ...]; blanks dropped. */
export function parseDnsServers(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A host's A/AAAA answers, as far as mail can use them. */
export type HostLookup = { routable: string[]; privateOnly: boolean; failure: 'timeout' | 'error' | null };

/** How lookupMailDomain gets an MX host's addresses: by default a lookup each time; the engine caches them. */
export type MxHostLookup = (host: string) => Promise<HostLookup>;

function errorCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e
    ? String((e as { code: unknown }).code)
    : 'UNKNOWN';
}

/** Public unicast addresses only, unless private and loopback ones are allowed (local runtime, tests). */
function isRoutable(address: string, allowPrivate: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return true;
  return (
    allowPrivate && ['private', 'loopback', 'uniqueLocal', 'linkLocal', 'carrierGradeNat'].includes(range)
  );
}

/** The A and AAAA answers of `host` (an address literal stands for itself). Never throws. */
export async function lookupHost(
  client: DnsClient,
  host: string,
  allowPrivate: boolean,
): Promise<HostLookup> {
  if (ipaddr.isValid(host)) {
    // the domain itself written as an address (an MX host written so never gets here: lookupMailDomain)
    const ok = isRoutable(host, allowPrivate);
    return { routable: ok ? [host] : [], privateOnly: !ok, failure: null };
  }
  const results = await Promise.allSettled([client.resolve4(host), client.resolve6(host)]);
  const all: string[] = [];
  let failure: HostLookup['failure'] = null;
  for (const r of results) {
    if (r.status === 'fulfilled') all.push(...r.value);
    else {
      const code = errorCode(r.reason);
      if (code === 'ETIMEOUT') failure = 'timeout';
      else if (code !== 'ENOTFOUND' && code !== 'ENODATA' && failure === null) failure = 'error';
    }
  }
  const routable = all.filter((a) => isRoutable(a, allowPrivate));
  return {
    routable,
    privateOnly: all.length > 0 && routable.length === 0,
    failure: routable.length ? null : failure,
  };
}

/**
 * Where mail for the domain goes, or why it cannot go anywhere. Never throws.
 * @param mxHost how an MX host's addresses are looked up (the engine shares them between domains)
 * @param hostPhaseMs how long the MX hosts' lookups (all at once) are waited for together; a host not
 *   answered by then counts as timed out
 */
export async function lookupMailDomain(
  client: DnsClient,
  domain: string,
  allowPrivateMx: boolean,
  mxHost: MxHostLookup = (host) => lookupHost(client, host, allowPrivateMx),
  hostPhaseMs = Number.POSITIVE_INFINITY,
): Promise<DnsFacts> {
  let mx: MxRecord[];
  try {
    mx = await client.resolveMx(domain);
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOTFOUND') return facts('no_such_domain', null);
    if (code === 'ETIMEOUT') return facts('dns_timeout', 'mx_query');
    if (code !== 'ENODATA') return facts('dns_error', code);
    mx = [];
  }
  if (mx.length === 0) return implicitMx(client, domain, allowPrivateMx);
  const isNull = (r: MxRecord) => r.exchange === '' || r.exchange === '.';
  if (mx.length === 1 && mx[0] && isNull(mx[0])) return facts('null_mx', null, mx);
  const records = mx
    .filter((r) => !isNull(r))
    .map((r) => ({ exchange: r.exchange.toLowerCase().replace(/\.$/, ''), priority: r.priority }))
    .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));
  // RFC 5321 5.1: an MX names a host, never an address; "10 192.0.2.1." is a name that looks like one,
  // which Postfix skips ("numeric domain name in resource data of MX record") and Exim refuses unless
  // told otherwise (allow_mx_to_ip): mail for it bounces
  const hosts = [...new Set(records.map((r) => r.exchange))].filter((host) => !ipaddr.isValid(host));
  if (hosts.length === 0) return facts('no_mail_server', 'mx_ip_address', records);
  // Every host asked at once, all within one bound: a domain with 20 MX hosts that time out costs one
  // timeout, not 20 one after another. The first host in priority order with a routable address wins.
  const lookups = hosts.map((host) => withinBound(mxHost(host), hostPhaseMs));
  let sawTimeout = false;
  let sawError = false;
  let sawPrivate = false;
  for (let index = 0; index < hosts.length; index++) {
    const h = await lookups[index]!;
    if (h.routable.length > 0)
      return {
        dns: 'ok',
        dnsDetail: null,
        mxRecords: records,
        mailHost: { host: hosts[index]!, addresses: h.routable },
      };
    sawTimeout ||= h.failure === 'timeout';
    sawError ||= h.failure === 'error';
    sawPrivate ||= h.privateOnly;
  }
  if (sawTimeout) return facts('dns_timeout', 'mx_host_query', records);
  if (sawError) return facts('dns_error', 'mx_host_query', records);
  return facts('no_mail_server', sawPrivate ? 'mx_private' : 'mx_unresolvable', records);
}

const TIMED_OUT: HostLookup = Object.freeze({ routable: [], privateOnly: false, failure: 'timeout' });

/** The host's lookup, or a timeout when it has not ended within `ms` (its lookup carries on). */
function withinBound(lookup: Promise<HostLookup>, ms: number): Promise<HostLookup> {
  if (!Number.isFinite(ms)) return lookup;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<HostLookup>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([lookup, bound]).finally(() => clearTimeout(timer));
}

async function implicitMx(client: DnsClient, domain: string, allowPrivateMx: boolean): Promise<DnsFacts> {
  const h = await lookupHost(client, domain, allowPrivateMx);
  if (h.routable.length > 0) {
    return {
      dns: 'ok',
      dnsDetail: 'implicit_mx',
      mxRecords: [],
      mailHost: { host: domain, addresses: h.routable },
    };
  }
  if (h.failure === 'timeout') return facts('dns_timeout', 'address_query');
  if (h.failure === 'error') return facts('dns_error', 'address_query');
  return facts('no_mail_server', h.privateOnly ? 'implicit_mx_private' : 'no_mx_no_address');
}

function facts(dns: DnsOutcome, dnsDetail: string | null, mxRecords: MxRecord[] = []): DnsFacts {
  return { dns, dnsDetail, mxRecords, mailHost: null };
}
