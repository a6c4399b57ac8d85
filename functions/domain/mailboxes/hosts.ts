// Where a mailbox's IMAP or SMTP host name points, and whether mailvet may connect there: public
// unicast addresses only, unless ALLOW_PRIVATE_MX=true (local runtime, tests) also allows private and
// loopback ones. The connection then goes to the address checked here, never to a fresh lookup.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { MailboxUnreachableError, type MailboxProtocol } from '../../errors';
import { settings } from '../../settings';
import { createResolver, parseDnsServers } from '../validation/dns-lookup';

const allowedRanges = ['private', 'loopback', 'uniqueLocal', 'linkLocal', 'carrierGradeNat'];

function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (allowPrivate && allowedRanges.includes(range));
}

async function addressesOf(host: string): Promise<string[]> {
  if (ipaddr.isValid(host)) return [host];
  const s = settings();
  const servers = parseDnsServers(s.DNS_SERVERS);
  if (servers.length > 0) {
    const dns = createResolver(servers, s.DNS_TIMEOUT_MS, 2);
    const answers = await Promise.allSettled([dns.resolve4(host), dns.resolve6(host)]);
    const found = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (found.length > 0) return found;
  }
  // The system's resolver (and hosts file), as a mail client on this machine would use.
  return (await lookup(host, { all: true })).map((a) => a.address);
}

/** The address to connect to, or MailboxUnreachableError naming the host and why. */
export async function resolveServerHost(
  protocol: MailboxProtocol,
  host: string,
  port: number,
): Promise<string> {
  let addresses: string[];
  try {
    addresses = await addressesOf(host);
  } catch {
    throw new MailboxUnreachableError(protocol, host, port, 'no such host');
  }
  const allowed = addresses.find((a) => isAllowedAddress(a, settings().ALLOW_PRIVATE_MX));
  if (allowed === undefined)
    throw new MailboxUnreachableError(protocol, host, port, `${host} is not on a public network`);
  return allowed;
}

/** The MX host names of a domain (empty when it has none or the lookup fails). */
export async function mxHostsOf(domain: string): Promise<string[]> {
  const s = settings();
  try {
    const dns = createResolver(parseDnsServers(s.DNS_SERVERS), s.DNS_TIMEOUT_MS, 1);
    return (await dns.resolveMx(domain)).sort((a, b) => a.priority - b.priority).map((r) => r.exchange);
  } catch {
    return [];
  }
}
