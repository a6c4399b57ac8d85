// What the engine caches per domain: the DomainVerdict built from its syntax, DNS facts, lists, typo
// suggestion and catch-all probe, with the ready-made verdicts the per-address classification picks from.
import { V, syntaxVerdict } from './classify';
import type { DnsFacts } from './dns-lookup';
import { isDisposableDomain, isFreeProviderDomain, registrableDomainOf } from './lists';
import { mxProviderOf } from './mx-provider';
import { parseDomain } from './syntax';
import { TEST_DOMAIN, testAddressOf } from './test-addresses';
import { suggestDomain } from './typos';
import type { CatchAllProbe, DomainVerdict, MailboxProbe, Verdict } from './types';
import { verdict } from './verdicts';

/** What a domain's DNS facts and catch-all probe say about it, as the engine caches it. */
export function domainVerdictOf(
  ascii: string,
  unicode: string,
  facts: DnsFacts,
  catchAllProbe: CatchAllProbe,
): DomainVerdict {
  const isDisposable = isDisposableDomain(ascii);
  const didYouMean = suggestDomain(ascii);
  return {
    name: ascii,
    unicodeName: unicode,
    syntaxError: null,
    ipLiteral: false,
    dns: facts.dns,
    dnsDetail: facts.dnsDetail,
    mxRecords: facts.mxRecords,
    mailHost: facts.mailHost,
    mxProvider: mxProviderOf(facts.mxRecords.map((r) => r.exchange)),
    registrableDomain: registrableDomainOf(ascii),
    isDisposable,
    isFreeProvider: isFreeProviderDomain(ascii),
    isCatchAll: catchAllProbe === 'catch_all' ? true : catchAllProbe === 'not_catch_all' ? false : null,
    catchAllProbe,
    didYouMean,
    verdicts: domainVerdicts(facts, isDisposable, didYouMean !== null, catchAllProbe),
  };
}

/** Domains decided without DNS: bad syntax, IP literals. */
export function offlineDomainVerdict(
  raw: string,
  ascii: string,
  error: string | null,
  ipLiteral: boolean,
): DomainVerdict {
  const name = ascii || raw;
  return {
    name,
    unicodeName: name,
    syntaxError: error,
    ipLiteral,
    dns: ipLiteral && error === null ? 'ip_literal' : 'skipped',
    dnsDetail: null,
    mxRecords: [],
    mailHost: null,
    mxProvider: null,
    registrableDomain: null,
    isDisposable: false,
    isFreeProvider: false,
    isCatchAll: null,
    catchAllProbe: 'off',
    didYouMean: null,
    verdicts: {
      gate: error !== null ? syntaxVerdict(error) : null,
      risk: error === null && ipLiteral ? verdict('ip_literal') : null,
      smtpRisk: null,
      ok: verdict('domain_ok'),
    },
  };
}

/** A domain whose lookup had not ended by a batch's deadline: a resolver timeout (subStatus `deadline`). */
export function lateDomainVerdict(raw: string): DomainVerdict {
  const { ascii, unicode } = parseDomain(raw);
  const facts: DnsFacts = { dns: 'dns_timeout', dnsDetail: 'deadline', mxRecords: [], mailHost: null };
  return domainVerdictOf(ascii, unicode, facts, 'off');
}

/** The test domain's shared verdict: never resolved, never probed (mailHost null). */
export const TEST_DOMAIN_VERDICT: DomainVerdict = Object.freeze({
  name: TEST_DOMAIN,
  unicodeName: TEST_DOMAIN,
  syntaxError: null,
  ipLiteral: false,
  dns: 'skipped',
  dnsDetail: null,
  mxRecords: [],
  mailHost: null,
  mxProvider: null,
  registrableDomain: TEST_DOMAIN,
  isDisposable: false,
  isFreeProvider: false,
  isCatchAll: null,
  catchAllProbe: 'off',
  didYouMean: null,
  verdicts: { gate: null, risk: null, smtpRisk: null, ok: verdict('accepted') },
}) as DomainVerdict;

/** The verdict of an extracted address at the test domain (bulk and classify: synchronous). */
export function testVerdictOf(address: string): Verdict {
  return testAddressOf(address.trim())?.verdict ?? verdict('mailbox_not_found');
}

/** The catch-all test's outcome from the probe of a random recipient. */
export function catchAllOf(outcome: MailboxProbe): CatchAllProbe {
  switch (outcome) {
    case 'accepted':
      return 'catch_all';
    case 'not_found':
      return 'not_catch_all';
    case 'greylisted':
    case 'timeout':
    case 'unreachable':
      return outcome;
    case 'proxy_failed':
      // the proxy, not the host, failed (kept briefly, see loadDomain)
      return 'proxy_failed';
    default:
      // full, blocked, error: the server answered, but not about existence
      return 'blocked';
  }
}

/** The DNS answers that say the domain cannot receive mail (all of them block_bounce_risk). */
export function isNegative(dns: DnsFacts['dns']): boolean {
  return dns === 'no_such_domain' || dns === 'null_mx' || dns === 'no_mail_server';
}

function domainVerdicts(
  facts: DnsFacts,
  isDisposable: boolean,
  isTypo: boolean,
  probe: CatchAllProbe,
): DomainVerdict['verdicts'] {
  let gate: Verdict | null = null;
  if (isNegative(facts.dns)) {
    gate = verdict(facts.dns as 'no_such_domain' | 'null_mx' | 'no_mail_server', facts.dnsDetail);
  } else if (isDisposable) gate = verdict('disposable', isTypo ? 'typo_domain' : null);
  const risk =
    facts.dns === 'dns_error' || facts.dns === 'dns_timeout' || facts.dns === 'dns_unavailable'
      ? verdict(facts.dns, facts.dnsDetail)
      : null;
  const smtpRisk = probe === 'greylisted' ? V.greylisted : probe === 'timeout' ? V.smtpTimeout : null;
  const ok =
    probe === 'catch_all'
      ? verdict('catch_all')
      : verdict('domain_ok', facts.dnsDetail === 'implicit_mx' ? 'implicit_mx' : null);
  return { gate, risk, smtpRisk, ok };
}
