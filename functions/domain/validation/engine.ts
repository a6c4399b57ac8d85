// The validation engine: one per process, shared by the single-email endpoints and the bulk
// validators. Domains are resolved asynchronously and cached; addresses are classified synchronously.
//
// Both paths enter through extractAddress (the one address a cell or request holds), so one text gets
// one verdict everywhere.
// Primary course (single email, validate):
//   1. extract the address, normalise (last "@", IDN to ASCII, lower-case domain); a test address at
//      mailvet.test gets its fixed verdict here, before any DNS (test-addresses.ts)
//   2. resolve the domain (cache, single-flight): syntax, DNS, lists, typo, catch-all probe
//   3. look the address up in the known-dead / known-complainer lists
//   4. probe the mailbox over SMTP when enabled and the verdict could still change
//   5. classifyLocal -> { status, reason, subStatus } plus the facts of the result body
// Bulk: prepare(emails) (steps 2 and 3 for a whole chunk at once), then statusOf(email) per row.
import { systemClock, type Clock } from '../../clock';
import { logger } from '../../log';
import { countMetric } from '../../metrics';
import type { Settings } from '../../settings';
import { V, classifyLocal, classifyParts, localFactsOf, plainLocalEnd, syntaxVerdict } from './classify';
import {
  createResolver,
  lookupMailDomain,
  parseDnsServers,
  type DnsClient,
  type DnsFacts,
} from './dns-lookup';
import { DnsHealth, parseDnsCanaries, type DnsHealthEvents } from './dns-health';
import { extractAddress, isOwnAddress } from './extract-address';
import { FlightCache } from './flight-cache';
import { fnv1a } from './hash';
import { NO_KNOWN_LISTS, type KnownAddressLists } from './known-lists';
import { listEmail } from '../../store/keys';
import { isDisposableDomain, isFreeProviderDomain, registrableDomainOf } from './lists';
import { mxProviderOf } from './mx-provider';
import { normalizeEmail, rawDomainOf } from './normalize';
import { probeRecipients, randomLocalPart, type RecipientResult, type SmtpProbeOptions } from './smtp-probe';
import { replyForResult, subStatusOf } from './smtp-reply';
import { isAcceptAllProvider } from '../probe/accept-all';
import type { ProbeVerdictCache } from '../probe/verdict-cache';
import { LOCAL_OCTETS, parseDomain } from './syntax';
import { isTestDomain, testAddressOf, TEST_DOMAIN } from './test-addresses';
import { suggestDomain } from './typos';
import type {
  CatchAllProbe,
  DomainVerdict,
  KnownFlags,
  MailboxProbe,
  SmtpReply,
  Status,
  ValidationResult,
  Verdict,
} from './types';
import { verdict } from './verdicts';

export interface EngineOptions {
  /** host:port resolvers; empty: the system's. */
  dnsServers?: readonly string[];
  dnsTimeoutMs?: number;
  dnsTries?: number;
  /** MX hosts on private or loopback addresses count as mail servers (local runtime, tests). */
  allowPrivateMx?: boolean;
  /** Replaces the node:dns resolver (benchmarks, tests that count queries). */
  dnsClient?: DnsClient;
  /**
   * Names that certainly receive mail (DNS_CANARY_DOMAINS): while none resolves, no domain is called
   * non-existent (dns-health.ts). Empty or absent: the check is off.
   */
  dnsCanaries?: readonly string[];
  /** Told when the resolver turns broken or heals (the log line, the metric). */
  dnsHealthEvents?: DnsHealthEvents;
  /** SMTP catch-all and mailbox probes; off by default (port 25 is blocked from most of AWS). */
  smtpProbe?: boolean;
  smtp?: Partial<SmtpProbeOptions>;
  knownLists?: KnownAddressLists;
  /** Mailbox probe verdicts kept across processes (PROBE_CACHE_DAYS): a cached address is not probed again. */
  probeCache?: ProbeVerdictCache;
  /** Lifetime of a settled domain verdict, and of an inconclusive one (timeout, SERVFAIL, greylisting). */
  cacheTtlMs?: number;
  transientCacheTtlMs?: number;
  maxCachedDomains?: number;
  /** Domain resolutions (DNS + catch-all probe) in flight at once. */
  maxConcurrentLookups?: number;
  /** How long after its request `slow@mailvet.test` answers: a few seconds past the sync budget. */
  slowTestAddressMs?: number;
  /** The wall clock of its caches, the DNS health recheck and deadlines; tests fix it. */
  clock?: Clock;
}

/** How far past the sync budget `slow@mailvet.test` answers. */
const SLOW_TEST_MARGIN_MS = 3000;

/** The engine's options from the process settings (DNS_SERVERS, ALLOW_PRIVATE_MX, SMTP_*). */
export function engineOptionsFromSettings(s: Settings, extra: EngineOptions = {}): EngineOptions {
  return {
    dnsServers: parseDnsServers(s.DNS_SERVERS),
    dnsTimeoutMs: s.DNS_TIMEOUT_MS,
    dnsCanaries: parseDnsCanaries(s.DNS_CANARY_DOMAINS),
    dnsHealthEvents: dnsHealthLog,
    allowPrivateMx: s.ALLOW_PRIVATE_MX,
    slowTestAddressMs: s.SYNC_BUDGET_MS + SLOW_TEST_MARGIN_MS,
    smtpProbe: s.SMTP_PROBE,
    smtp: {
      port: s.SMTP_PORT,
      timeoutMs: s.SMTP_TIMEOUT_MS,
      heloName: s.SMTP_HELO_NAME,
      mailFrom: s.SMTP_MAIL_FROM,
      socksProxy: s.SMTP_SOCKS_PROXY,
    },
    ...extra,
  };
}

/**
 * Said once per change of the resolver's health in this process's log (its engines share the resolver
 * settings, so the first to notice speaks); each broken check is counted for the deployed alarm.
 */
const dnsHealthLog: DnsHealthEvents = (() => {
  let saidBroken = false;
  return {
    onBroken: (canaries) => {
      if (saidBroken) return;
      saidBroken = true;
      logger.warn(
        'DNS resolver answers none of the canary domains: domains it calls non-existent read as some_risk / dns_unavailable until it does (DNS_SERVERS, DNS_CANARY_DOMAINS)',
        { canaries },
      );
    },
    onHealed: (canaries) => {
      if (!saidBroken) return;
      saidBroken = false;
      logger.info('DNS resolver answers the canary domains again', { canaries });
    },
    onBrokenCheck: () => countMetric('DnsUnavailable'),
  };
})();

export interface ValidateContext {
  /** Tenant whose own known-address lists apply besides the global ones. */
  companyId?: string;
  /**
   * Bulk: the instant (epoch ms) prepare stops waiting for DNS. A domain not resolved by then reads
   * some_risk / dns_timeout (subStatus `deadline`) in this batch; its lookup carries on into the cache.
   */
  deadlineMs?: number;
  /** When the request was made (default: now): `slow@mailvet.test` answers relative to it. */
  requestedAt?: Date;
}

/** What a mailbox probe can still do for one address (the single endpoint's rule). */
export type ProbeNeed =
  | { kind: 'probe'; email: string; host: string; addresses: string[] }
  /** The MX belongs to a provider that accepts every recipient at RCPT time: nothing to learn. */
  | { kind: 'unverifiable' }
  | null;

/** A chunk of addresses whose domains and list flags are loaded: classification is synchronous. */
export interface PreparedBatch {
  statusOf(email: string): Status;
  classify(email: string): Verdict;
  /** classify the index-th email given to prepare, without extracting its address again. */
  verdictAt(index: number): Verdict;
  /** Whether a probe could change this address's verdict, and where to probe it. */
  probeNeed(email: string): ProbeNeed;
  /** The verdict given a probe outcome (undefined: no probe ran, as classify). */
  classifyProbed(email: string, probe: MailboxProbe | undefined): Verdict;
}

const DEFAULT_SMTP: SmtpProbeOptions = {
  port: 25,
  timeoutMs: 10_000,
  heloName: 'mailvet.local',
  mailFrom: 'probe@mailvet.local',
  greylistAttempts: 3,
  greylistDelayMs: 5_000,
};

const MAX_RAW_ALIASES = 1_000_000;
// bound once: see classify.ts on import getters in the hot path
const hashRange = fnv1a;
const classifyAt = classifyParts;
const extract = extractAddress;
const ownAddress = isOwnAddress;
const plainEnd = plainLocalEnd;
const OCTETS = LOCAL_OCTETS;

interface RawAlias {
  raw: string;
  verdict: DomainVerdict;
  next: RawAlias | undefined;
}

export class ValidationEngine {
  private readonly dns: DnsClient;
  /** Whether the resolver can be trusted to say a domain does not exist. */
  readonly dnsHealth: DnsHealth;
  private readonly cache: FlightCache<DomainVerdict>;
  /**
   * Raw domain text as written in input (any case, IDN) -> verdict, so statusOf skips normalisation.
   * Keyed by fnv1a of the text and chained on collisions: the hot path looks up without slicing.
   */
  private readonly byRawDomain = new Map<number, RawAlias>();
  private rawAliases = 0;
  private readonly lists: KnownAddressLists;
  private readonly smtp: SmtpProbeOptions;
  private readonly nowMs: () => number;

  constructor(private readonly options: EngineOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.nowMs = () => clock().getTime();
    this.dns =
      options.dnsClient ??
      createResolver(options.dnsServers ?? [], options.dnsTimeoutMs ?? 5000, options.dnsTries ?? 2);
    this.dnsHealth = new DnsHealth(this.dns, options.dnsCanaries ?? [], options.dnsHealthEvents, clock);
    this.cache = new FlightCache(
      options.maxCachedDomains ?? 100_000,
      options.maxConcurrentLookups ?? 32,
      clock,
    );
    this.lists = options.knownLists ?? NO_KNOWN_LISTS;
    this.smtp = { ...DEFAULT_SMTP, ...stripUndefined(options.smtp ?? {}) };
  }

  /** The verdict of a domain (as written, or normalised); cached with TTL, one lookup per domain at a time. */
  async resolveDomain(raw: string): Promise<DomainVerdict> {
    const syntax = parseDomain(raw);
    let v: DomainVerdict;
    if (syntax.error !== null || syntax.ipLiteral)
      v = this.offlineVerdict(raw, syntax.ascii, syntax.error, syntax.ipLiteral);
    else if (syntax.ascii === TEST_DOMAIN) v = TEST_DOMAIN_VERDICT;
    else v = await this.cache.get(syntax.ascii, () => this.loadDomain(syntax.ascii, syntax.unicode));
    this.remember(raw, v);
    return v;
  }

  /**
   * Resolves many domains (bulk: every distinct domain of a chunk); afterwards statusOf is synchronous.
   * With a deadline (epoch ms) it stops waiting then.
   * @returns the domains (as given) not resolved by the deadline; empty without one
   */
  async prepareDomains(domains: Iterable<string>, deadlineMs?: number): Promise<Set<string>> {
    const unresolved = new Set<string>(domains);
    const all = Promise.all(
      [...unresolved].map((d) => this.resolveDomain(d).then(() => unresolved.delete(d))),
    );
    if (deadlineMs === undefined) {
      await all;
      return unresolved;
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadlineMs - this.nowMs()));
    });
    try {
      await Promise.race([all, deadline]);
    } finally {
      clearTimeout(timer);
    }
    return new Set(unresolved);
  }

  /** Loads domains and list flags for a chunk of addresses; the batch then classifies synchronously. */
  async prepare(emails: Iterable<string>, ctx: ValidateContext = {}): Promise<PreparedBatch> {
    // Extracted once here; verdictAt reuses them (the bulk hot path extracts each cell once).
    const addresses: (string | null)[] = [];
    const list: string[] = [];
    const domains = new Set<string>();
    for (const e of emails) {
      const address = typeof e === 'string' ? extract(e) : '';
      addresses.push(address);
      if (address === null || address.length === 0) continue;
      list.push(address);
      domains.add(rawDomainOf(address));
    }
    const [flags, unresolved] = await Promise.all([
      this.lists.lookup(ctx.companyId, list),
      this.prepareDomains(domains, ctx.deadlineMs),
    ]);
    const flagsOf = (address: string | null): KnownFlags | undefined =>
      flags.size === 0 || address === null ? undefined : flags.get(listEmail(address));
    // past the deadline a domain reads as a resolver timeout, not as an older verdict of it
    const lateDomains = new Map<string, DomainVerdict>();
    for (const raw of unresolved) lateDomains.set(raw, this.lateDomain(raw));
    const lateDomainOf = (address: string | null): DomainVerdict | undefined =>
      lateDomains.size === 0 || address === null ? undefined : lateDomains.get(rawDomainOf(address));
    const classifyOne = (address: string | null): Verdict => {
      const late = lateDomainOf(address);
      return late && address !== null
        ? classifyLocal(address, late, flagsOf(address))
        : this.classifyAddress(address, flagsOf(address));
    };
    // the common batch (no list flags, every domain in time) classifies a cell as engine.classify does
    const verdictOf =
      flags.size === 0 && lateDomains.size === 0
        ? (email: string) => this.classify(email)
        : (email: string) => classifyOne(typeof email === 'string' ? extract(email) : '');
    return {
      classify: verdictOf,
      statusOf: (email) => verdictOf(email).status,
      verdictAt: (index) => classifyOne(addresses[index] ?? ''),
      probeNeed: (email) => {
        if (!this.options.smtpProbe) return null;
        const address = typeof email === 'string' ? extract(email) : null;
        return address && !lateDomainOf(address) ? this.probeNeedOf(address, flagsOf(address)) : null;
      },
      classifyProbed: (email, probe) => {
        const address = typeof email === 'string' ? extract(email) : null;
        // not probed (the probe stage ran out of time) or DNS past the deadline: the verdict without a probe
        if (probe === undefined || probe === 'not_attempted' || !address || lateDomainOf(address))
          return verdictOf(email);
        return classifyLocal(address, this.domainOf(address), flagsOf(address), probe);
      },
    };
  }

  /** ProbeNeed of a prepared address (no I/O): the same rule as the single endpoint's probe. */
  probeNeedOf(email: string, known?: KnownFlags): ProbeNeed {
    if (!this.options.smtpProbe || typeof email !== 'string') return null;
    const n = normalizeEmail(email);
    if (!n.hasAt) return null;
    const domain = this.domainOf(email);
    if (domain === undefined || !this.shouldProbe(domain, classifyLocal(n.email, domain, known), n.localPart))
      return null;
    if (isAcceptAllProvider(domain.mxProvider)) return { kind: 'unverifiable' };
    return {
      kind: 'probe',
      email: n.email,
      host: domain.mailHost!.host,
      addresses: domain.mailHost!.addresses,
    };
  }

  /** The cached verdict of an address's domain, without I/O; undefined when not prepared. */
  domainOf(email: string): DomainVerdict | undefined {
    const address = extract(email) ?? '';
    return this.domainAt(address, address.lastIndexOf('@') + 1, address.length);
  }

  /** The verdict of the domain written at address[start, end). */
  private domainAt(address: string, start: number, end: number): DomainVerdict | undefined {
    const len = end - start;
    for (let e = this.byRawDomain.get(hashRange(address, start, end)); e !== undefined; e = e.next) {
      if (e.raw.length === len && address.startsWith(e.raw, start)) return e.verdict;
    }
    return this.domainOfRaw(address.slice(start, end));
  }

  private domainOfRaw(raw: string): DomainVerdict | undefined {
    const syntax = parseDomain(raw);
    const v =
      syntax.error !== null || syntax.ipLiteral
        ? this.offlineVerdict(raw, syntax.ascii, syntax.error, syntax.ipLiteral)
        : syntax.ascii === TEST_DOMAIN
          ? TEST_DOMAIN_VERDICT
          : this.cache.peek(syntax.ascii);
    if (v !== undefined) this.remember(raw, v);
    return v;
  }

  /** Synchronous verdict once the domain is prepared (else some_risk domain_not_resolved). Never throws. */
  classify(email: string, known?: KnownFlags): Verdict {
    if (typeof email !== 'string') return V.blank;
    // The common cell is its own address (extractAddress would return it unchanged): classified at once,
    // without extraction's scans of the whole text.
    const plainAt = plainEnd(email);
    if (plainAt > 0 && plainAt <= 64 && ownAddress(email, plainAt)) {
      const domain = this.domainAt(email, plainAt + 1, email.length);
      if (domain === TEST_DOMAIN_VERDICT) return testVerdictOf(email);
      if (domain !== undefined) return classifyAt(email, plainAt, domain, known, undefined, plainAt * OCTETS);
    }
    return this.classifyAddress(extract(email), known);
  }

  /** classify after extractAddress (null: several addresses). */
  private classifyAddress(address: string | null, known: KnownFlags | undefined): Verdict {
    if (address === null) return V.multipleAddresses;
    const plainAt = plainEnd(address);
    if (plainAt > 0 && plainAt <= 64) {
      // a plain dot-atom local part (a second "@" would sit in the domain part, which then fails)
      const domain = this.domainAt(address, plainAt + 1, address.length);
      if (domain === TEST_DOMAIN_VERDICT) return testVerdictOf(address);
      if (domain !== undefined)
        return classifyAt(address, plainAt, domain, known, undefined, plainAt * OCTETS);
    }
    if (address.length === 0) return V.blank;
    const at = address.lastIndexOf('@');
    if (at < 0) return V.missingAt;
    const domain = this.domainAt(address, at + 1, address.length);
    if (domain === TEST_DOMAIN_VERDICT) return testVerdictOf(address);
    return classifyAt(address, at, domain, known, undefined);
  }

  statusOf(email: string, known?: KnownFlags): Status {
    return this.classify(email, known).status;
  }

  /** The full verdict of one address with every fact of the result body. Never throws. */
  async validate(raw: unknown, ctx: ValidateContext = {}): Promise<ValidationResult> {
    try {
      return await this.validateUnsafe(raw, ctx);
    } catch {
      return buildResult(normalizeEmail(raw).email, undefined, V.validationError, undefined, 'skipped', null);
    }
  }

  private async validateUnsafe(raw: unknown, ctx: ValidateContext): Promise<ValidationResult> {
    const address = extract(typeof raw === 'string' ? raw : '');
    if (address === null)
      return buildResult(String(raw).trim(), undefined, V.multipleAddresses, undefined, 'skipped', null);
    const n = normalizeEmail(address);
    if (n.email.length === 0) return buildResult('', undefined, V.blank, undefined, 'skipped', null);
    if (!n.hasAt) return buildResult(n.email, undefined, V.missingAt, undefined, 'skipped', null);
    if (isTestDomain(n.domain)) return this.testResult(n.email, ctx);
    const [domain, known] = await Promise.all([
      this.resolveDomain(rawDomainOf(n.email)),
      this.knownFlags(ctx.companyId, n.email),
    ]);
    const before = classifyLocal(n.email, domain, known);
    let probe: MailboxProbe | 'off' | 'skipped' = this.options.smtpProbe ? 'skipped' : 'off';
    let reply: SmtpReply | null = null;
    // the proxy failed on this domain's catch-all test: say so rather than "skipped"
    if (this.options.smtpProbe && domain.catchAllProbe === 'proxy_failed') probe = 'proxy_failed';
    if (this.shouldProbe(domain, before, n.localPart) && domain.mailHost) {
      if (isAcceptAllProvider(domain.mxProvider)) probe = 'unverifiable';
      else ({ probe, reply } = await this.probeMailbox(domain.mailHost, n.email));
    }
    let final =
      typeof probe === 'string' && probe !== 'off' && probe !== 'skipped'
        ? classifyLocal(n.email, domain, known, probe)
        : before;
    // a verdict the reply decided carries the server's own code (5.1.10, 5.2.1, 550)
    if (reply !== null && PROBE_REASONS.has(final.reason)) final = verdict(final.reason, subStatusOf(reply));
    return buildResult(n.email, domain, final, known, probe, reply);
  }

  /** A test address's fixed result: no DNS, no lists, no probe; `slow@` waits past the sync budget. */
  private async testResult(email: string, ctx: ValidateContext): Promise<ValidationResult> {
    const test = testAddressOf(email)!;
    if (test.slow) {
      const due = (ctx.requestedAt?.getTime() ?? this.nowMs()) + (this.options.slowTestAddressMs ?? 0);
      const wait = due - this.nowMs();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
    const reason = test.verdict.reason;
    const known = { dead: reason === 'known_dead', complainer: false };
    const out = buildResult(email, TEST_DOMAIN_VERDICT, test.verdict, known, 'skipped', null);
    out.domain.isCatchAll = reason === 'catch_all' ? true : null;
    return out;
  }

  /** The cached probe verdict of an address, or a fresh probe (then cached when conclusive). */
  private async probeMailbox(
    host: { host: string; addresses: string[] },
    email: string,
  ): Promise<RecipientResult> {
    const cache = this.options.probeCache;
    const cached = await cache?.get([email]).catch(() => undefined);
    const hit = cached?.get(email.toLowerCase());
    // a cached verdict keeps no reply: it was decided by an earlier probe
    if (hit !== undefined) return { probe: hit, reply: null };
    const [outcome = { probe: 'error', reply: null }] = await probeRecipients(
      host.addresses,
      [email],
      this.smtp,
      host.host,
    );
    await cache?.put(new Map([[email, outcome.probe]])).catch(() => undefined);
    return outcome;
  }

  /** Probe only when the answer can still change the verdict and the domain's server talks to us. */
  private shouldProbe(domain: DomainVerdict, before: Verdict, localPart: string): boolean {
    if (!this.options.smtpProbe || domain.mailHost === null || domain.isCatchAll === true) return false;
    if (['timeout', 'unreachable', 'proxy_failed'].includes(domain.catchAllProbe)) return false;
    if (!/^[\x21-\x7e]+$/.test(localPart)) return false; // SMTPUTF8 recipients are not probed
    return ['domain_ok', 'role_account', 'greylisted', 'smtp_timeout'].includes(before.reason);
  }

  private async knownFlags(companyId: string | undefined, email: string): Promise<KnownFlags | undefined> {
    try {
      return (await this.lists.lookup(companyId, [email])).get(listEmail(email));
    } catch {
      // the lists refine a verdict; an unavailable table must not turn every address into an error
      return undefined;
    }
  }

  private remember(raw: string, v: DomainVerdict): void {
    if (this.rawAliases >= MAX_RAW_ALIASES) {
      this.byRawDomain.clear();
      this.rawAliases = 0;
    }
    const h = fnv1a(raw, 0, raw.length);
    const head = this.byRawDomain.get(h);
    for (let e = head; e !== undefined; e = e.next) {
      if (e.raw === raw) {
        e.verdict = v;
        return;
      }
    }
    this.byRawDomain.set(h, { raw, verdict: v, next: head });
    this.rawAliases++;
  }

  /** Domains decided without DNS: bad syntax, IP literals. */
  private offlineVerdict(
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
  private lateDomain(raw: string): DomainVerdict {
    const { ascii, unicode } = parseDomain(raw);
    const facts: DnsFacts = { dns: 'dns_timeout', dnsDetail: 'deadline', mxRecords: [], mailHost: null };
    return domainVerdictOf(ascii, unicode, facts, 'off');
  }

  private async loadDomain(ascii: string, unicode: string): Promise<{ value: DomainVerdict; ttlMs: number }> {
    let facts: DnsFacts = await lookupMailDomain(this.dns, ascii, this.options.allowPrivateMx ?? false).catch(
      (): DnsFacts => ({ dns: 'dns_error', dnsDetail: 'resolver', mxRecords: [], mailHost: null }),
    );
    // A negative answer is believed only from a resolver that still answers for the canaries; while it
    // does not, nothing loaded is cached (the next lookup after it heals gets the real answer).
    let resolverBroken = false;
    if (isNegative(facts.dns) && (await this.dnsHealth.isBroken())) {
      resolverBroken = true;
      facts = { dns: 'dns_unavailable', dnsDetail: facts.dns, mxRecords: [], mailHost: null };
    }
    let catchAllProbe: CatchAllProbe = 'off';
    // accept-all providers answer 250 to anything: a catch-all test there would mislabel every domain
    if (
      this.options.smtpProbe &&
      facts.dns === 'ok' &&
      facts.mailHost &&
      !isDisposableDomain(ascii) &&
      !isAcceptAllProvider(mxProviderOf(facts.mxRecords.map((r) => r.exchange)))
    ) {
      const [outcome] = await probeRecipients(
        facts.mailHost.addresses,
        [`${randomLocalPart()}@${ascii}`],
        this.smtp,
        facts.mailHost.host,
      );
      catchAllProbe = catchAllOf(outcome?.probe ?? 'error');
    }
    const value = domainVerdictOf(ascii, unicode, facts, catchAllProbe);
    if (resolverBroken || this.dnsHealth.lastKnownBroken === true) return { value, ttlMs: 0 };
    const settled =
      facts.dns !== 'dns_error' &&
      facts.dns !== 'dns_timeout' &&
      catchAllProbe !== 'greylisted' &&
      catchAllProbe !== 'timeout' &&
      catchAllProbe !== 'proxy_failed';
    return {
      value,
      ttlMs: settled ? (this.options.cacheTtlMs ?? 3_600_000) : (this.options.transientCacheTtlMs ?? 60_000),
    };
  }
}

/** What a domain's DNS facts and catch-all probe say about it, as the engine caches it. */
function domainVerdictOf(
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

/** The verdict of an extracted address at the test domain (bulk and classify: synchronous). */
function testVerdictOf(address: string): Verdict {
  return testAddressOf(address.trim())?.verdict ?? verdict('mailbox_not_found');
}

/** The test domain's shared verdict: never resolved, never probed (mailHost null). */
const TEST_DOMAIN_VERDICT: DomainVerdict = Object.freeze({
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

/** Reasons a mailbox probe's reply decides: their subStatus is the server's own code. */
const PROBE_REASONS: ReadonlySet<string> = new Set([
  'mailbox_not_found',
  'mailbox_not_found_catch_all',
  'mailbox_disabled',
  'mailbox_full',
  'greylisted',
]);

function catchAllOf(outcome: MailboxProbe): CatchAllProbe {
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
function isNegative(dns: DnsFacts['dns']): boolean {
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

function buildResult(
  email: string,
  domain: DomainVerdict | undefined,
  result: Verdict,
  known: KnownFlags | undefined,
  probe: MailboxProbe | 'off' | 'skipped',
  reply: SmtpReply | null,
): ValidationResult {
  const facts = localFactsOf(email);
  const out: ValidationResult = {
    email,
    domain: {
      name: domain?.name ?? rawDomainOf(email),
      unicodeName: domain?.unicodeName ?? rawDomainOf(email),
      registrableDomain: domain?.registrableDomain ?? null,
      mxRecords: domain?.mxRecords ?? [],
      mxProvider: domain?.mxProvider ?? null,
      isCatchAll: domain?.isCatchAll ?? null,
      isDisposable: domain?.isDisposable ?? false,
      isFreeProvider: domain?.isFreeProvider ?? false,
      hasMailServer: domain === undefined || domain.dns === 'skipped' ? null : hasMailServer(domain),
    },
    mailbox: {
      localPart: facts.localPart,
      isRoleAccount: facts.isRoleAccount,
      isAbuseRole: facts.isAbuseRole,
      isKnownDead: known?.dead ?? false,
      isKnownComplainer: known?.complainer ?? false,
      smtpProbe: probe,
      smtpReply: reply === null ? null : replyForResult(reply),
    },
    result: { reason: result.reason, status: result.status, subStatus: result.subStatus },
  };
  if (domain?.didYouMean) out.didYouMean = `${facts.localPart}@${domain.didYouMean}`;
  return out;
}

function hasMailServer(d: DomainVerdict): boolean | null {
  if (d.dns === 'ok') return true;
  if (d.dns === 'dns_error' || d.dns === 'dns_timeout' || d.dns === 'dns_unavailable') return null;
  if (d.dns === 'ip_literal') return null;
  return false;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
