// SSRF guard for callback URLs: only http(s), and only public addresses, checked on the address the
// socket actually connects to (after DNS, so a name that re-resolves to 127.0.0.1 is still refused).
import type { Agent } from 'node:http';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Cloud metadata endpoints (EC2/ECS IPv4, EC2 IPv6, and IPv4-mapped spellings as Node and URL print
 * them). Already refused as link-local / unique-local in deployed stacks; listed so that even
 * ALLOW_PRIVATE_CALLBACKS=true never lets a callback read instance credentials. Exact strings rather
 * than CIDRs: the library compares plain addresses textually, and an IPv4 CIDR tested against an IPv6
 * address makes it log a warning on every request.
 */
const metadataAddresses = [
  '169.254.169.254',
  '169.254.170.2',
  'fd00:ec2::254',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::ffff:169.254.170.2',
  '::ffff:a9fe:aa02',
];

export type CallbackUrl = { ok: true; url: URL } | { ok: false; error: string };

/** Parses a callback URL, accepting only absolute http and https URLs. */
export function parseCallbackUrl(raw: string): CallbackUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: 'Callback URL is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: `Callback URL scheme ${url.protocol} is not allowed (only http and https)` };
  }
  return { ok: true, url };
}

const agents = new Map<string, Agent>();

/**
 * The agent for one callback request. Without `allowPrivate` every non-unicast address is refused:
 * private, loopback, link-local (169.254/16, fe80::/10), CGNAT (100.64/10), unique-local (fc00::/7),
 * IPv4-mapped IPv6, reserved and 0.0.0.0. Agents do not keep connections alive: each attempt is its
 * own connection, so a pooled socket never skips the address check.
 */
export function callbackAgent(protocol: 'http:' | 'https:', allowPrivate: boolean): Agent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = {
      keepAlive: false,
      allowPrivateIPAddress: allowPrivate,
      allowMetaIPAddress: false,
      denyIPAddressList: metadataAddresses,
    };
    agent =
      protocol === 'https:'
        ? new RequestFilteringHttpsAgent(options)
        : new RequestFilteringHttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}

// request-filtering-agent reports a refusal as a plain Error with this wording and no code.
const refusalPattern = /^DNS lookup (\S*?)\(.*is not allowed/;

/** When a request error is the guard refusing the address, a sentence for the job's attempt record. */
export function refusalReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const match = refusalPattern.exec(error.message);
  if (!match) return undefined;
  return (
    `Callback address ${match[1] ?? ''} refused: private, loopback, link-local, reserved and ` +
    'metadata addresses cannot receive webhooks'
  );
}
