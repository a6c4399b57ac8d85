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
import { systemClock } from '../../clock';
import { V, classifyLocal, classifyParts, plainLocalEnd } from './classify';
import {
  TEST_DOMAIN_VERDICT,
  catchAllOf,
  domainVerdictOf,
  isNegative,
  lateDomainVerdict,
  offlineDomainVerdict,
  testVerdictOf,
} from './domain-verdict';
import {
  createResolver,
  lookupHost,
  lookupMailDomain,
  type DnsClient,
  type DnsFacts,
  type HostLookup,
} from './dns-lookup';
import { DnsHealth } from './dns-health';
import { smtpOptionsOf, type EngineOptions } from './engine-options';
import { extractAddress, isOwnAddress, lastAtSign } from './extract-address';
import { FlightCache } from './flight-cache';
import { NO_KNOWN_LISTS, type KnownAddressLists } from './known-lists';
import { listEmail } from '../../store/keys';
import { isDisposableDomain } from './lists';
import { probeMailbox, shouldProbe, withReplyCode } from './mailbox-probe';
import { mxProviderOf } from './mx-provider';
import { normalizeEmail, rawDomainOf } from './normalize';
import { BatchDomains, RawDomainIndex } from './raw-domain-index';
import { probeRecipients, randomLocalPart, type SmtpProbeOptions } from './smtp-probe';
import { isAcceptAllProvider } from '../probe/accept-all';
import { MemoryPoliteness, type Politeness } from '../probe/politeness';
import { LOCAL_OCTETS, parseDomain } from './syntax';
import { isTestDomain, testAddressOf, TEST_DOMAIN } from './test-addresses';
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
import { buildResult } from './validation-result';

export { engineOptionsFromSettings, type EngineOptions } from './engine-options';

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
  /**
   * Single validations: the instant (epoch ms) the caller stops waiting. A domain whose lookup timed
   * out is looked up once more, afresh, when a whole lookup still fits before it.
   */
  retryTimeoutBeforeMs?: number;
  /**
   * Bulk: the chunk's second round after some of its domains timed out. Their cached timeouts are
   * dropped first, so they are asked afresh (a recursive resolver may have the answer by now).
   */
  retryTimeouts?: boolean;
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
  /** Whether the engine probes mailboxes (SMTP_PROBE): else probeNeed is always null. */
  readonly probes: boolean;
  /** Whether a probe could change this address's verdict, and where to probe it. */
  probeNeed(email: string): ProbeNeed;
  /** The verdict given a probe outcome (undefined: no probe ran, as classify). */
  classifyProbed(email: string, probe: MailboxProbe | undefined): Verdict;
}

/**
 * Domain loads in flight at once, per engine (a process). A validator reads DNS answers only between its
 * other work, so more in flight would let a busy event loop take more answers a turn (bench/dns-window.ts:
 * a chunk's 1,800 domains behind a loop blocked 40 ms of 50, 2.5-3.2 s at 32, 0.7-1.0 s at 128). But
 * every process sends to the same resolver, whose answers (and the client's socket buffer) overflow
 * first: two local workers at 128 each lost answers to the fixture server under load, and the domains
 * asked again after the resolver's timeout read dns_timeout. A lost answer costs the whole timeout.
 */
const MAX_CONCURRENT_LOOKUPS = 32;

/** How long an MX host's lookup may wait for a free lookup slot on top of its own DNS budget. */
const MX_HOST_QUEUE_MS = 1000;

// bound once: see classify.ts on import getters in the hot path
const classifyAt = classifyParts;
const extract = extractAddress;
const findLastAt = lastAtSign;
const ownAddress = isOwnAddress;
const plainEnd = plainLocalEnd;
const OCTETS = LOCAL_OCTETS;
const TEST_VERDICT = TEST_DOMAIN_VERDICT;
const testVerdict = testVerdictOf;

export class ValidationEngine {
  private readonly dns: DnsClient;
  /** Whether the resolver can be trusted to say a domain does not exist. */
  readonly dnsHealth: DnsHealth;
  private readonly cache: FlightCache<DomainVerdict>;
  /**
   * MX hosts' addresses, shared by the domains that name the host (most use one of a few providers'):
   * one A/AAAA lookup per host rather than per domain. Only hosts that resolved are kept, as long as a
   * settled domain verdict; a host that failed is asked again by the next domain.
   */
  private readonly mxHosts: FlightCache<HostLookup>;
  /** Raw domain text as written in input -> verdict, so statusOf skips normalisation. */
  private readonly rawDomains = new RawDomainIndex();
  private readonly lists: KnownAddressLists;
  private readonly smtp: SmtpProbeOptions;
  /** The per-host limits every probe of this engine keeps (shared with the bulk probe stage). */
  private readonly politeness: Politeness;
  private readonly nowMs: () => number;

  /** One DNS question's budget, retries included (DNS_TIMEOUT_MS). */
  private get dnsTimeoutMs(): number {
    return this.options.dnsTimeoutMs ?? 5000;
  }

  /** The longest a domain's lookup takes: the MX question, then its hosts' questions all at once. */
  get domainLookupBoundMs(): number {
    return 2 * this.dnsTimeoutMs + MX_HOST_QUEUE_MS;
  }

  /**
   * Forgets the cached verdicts of these domains (as written) that read dns_timeout, so that the next
   * resolution asks DNS again instead of repeating the timeout (the retry round after a timeout).
   */
  forgetTimeouts(domains: Iterable<string>): void {
    for (const raw of domains) {
      const { ascii } = parseDomain(raw);
      const v = this.cache.peek(ascii);
      if (v === undefined || v.dns !== 'dns_timeout') continue;
      this.cache.set(ascii, v, 0);
      this.rawDomains.remember(raw, v, 0);
    }
  }

  constructor(private readonly options: EngineOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.nowMs = () => clock().getTime();
    this.dns =
      options.dnsClient ?? createResolver(options.dnsServers ?? [], this.dnsTimeoutMs, options.dnsTries);
    this.dnsHealth = new DnsHealth(this.dns, options.dnsCanaries ?? [], options.dnsHealthEvents, clock);
    this.cache = new FlightCache(
      options.maxCachedDomains ?? 100_000,
      options.maxConcurrentLookups ?? MAX_CONCURRENT_LOOKUPS,
      clock,
    );
    this.mxHosts = new FlightCache(
      options.maxCachedDomains ?? 100_000,
      options.maxConcurrentLookups ?? MAX_CONCURRENT_LOOKUPS,
      clock,
    );
    this.lists = options.knownLists ?? NO_KNOWN_LISTS;
    this.smtp = smtpOptionsOf(options);
    // without the shared state (unit tests, tools): this process's own limits, the defaults
    this.politeness =
      options.politeness ??
      new MemoryPoliteness({ maxSessionsPerHost: 2, rcptPerSecondPerHost: 20, leaseMs: 150_000 });
  }

  private readonly lookupMxHost = (host: string): Promise<HostLookup> =>
    this.mxHosts.get(host, async () => {
      const value = await lookupHost(this.dns, host, this.options.allowPrivateMx ?? false);
      if (value.routable.length > 0) Object.freeze(value.routable);
      return { value, ttlMs: value.routable.length > 0 ? (this.options.cacheTtlMs ?? 3_600_000) : 0 };
    });

  /** The verdict of a domain (as written, or normalised); cached with TTL, one lookup per domain at a time. */
  async resolveDomain(raw: string): Promise<DomainVerdict> {
    const syntax = parseDomain(raw);
    let v: DomainVerdict;
    // verdicts of the text alone never change; the cache's last as long as its entry
    let freshUntil = Infinity;
    if (syntax.error !== null || syntax.ipLiteral)
      v = offlineDomainVerdict(raw, syntax.ascii, syntax.error, syntax.ipLiteral);
    else if (syntax.ascii === TEST_DOMAIN) v = TEST_DOMAIN_VERDICT;
    else {
      v = await this.cache.get(syntax.ascii, () => this.loadDomain(syntax.ascii, syntax.unicode));
      freshUntil = this.cache.expiresAt(syntax.ascii);
    }
    this.rawDomains.remember(raw, v, freshUntil);
    return v;
  }

  /**
   * Resolves many domains (bulk: every distinct domain of a chunk); afterwards statusOf is synchronous.
   * With a deadline (epoch ms) it stops waiting then.
   * @returns the domains (as given) not resolved by the deadline; empty without one
   */
  async prepareDomains(domains: Iterable<string>, deadlineMs?: number): Promise<Set<string>> {
    // A text resolved before whose cache entry still holds needs no call: a chunk's domains are mostly
    // the chunks' before it, and a promise chain each costs ~1 KB of garbage.
    const nowMs = this.nowMs();
    const unresolved = new Set<string>();
    for (const domain of domains) if (!this.rawDomains.isFresh(domain, nowMs)) unresolved.add(domain);
    if (unresolved.size === 0) return unresolved;
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
    const cells = Array.isArray(emails) ? (emails as readonly string[]) : [...emails];
    // Extracted once here; verdictAt reuses them (the bulk hot path extracts each cell once), with the
    // index of each one's last "@" and the slot of the domain text after it. Most cells are their own
    // address: only the others are kept (changed), so a chunk allocates no second array of its rows.
    const changed = new Map<number, string | null>();
    const ats = new Int32Array(cells.length).fill(-1);
    const slots = new Int32Array(cells.length).fill(-1);
    // 1: the cell is its own address with a plain local part ending at ats[index] (classify's fast
    // path): found once here by one pattern match, rather than by extraction's and the last "@"'s
    // scans here and the same pattern again when the row is classified
    const plain = new Uint8Array(cells.length);
    const domains = new BatchDomains();
    for (let index = 0; index < cells.length; index++) {
      const e = cells[index];
      if (typeof e === 'string') {
        const plainAt = plainEnd(e);
        if (plainAt > 0 && plainAt <= 64 && ownAddress(e, plainAt)) {
          plain[index] = 1;
          ats[index] = plainAt;
          slots[index] = domains.slotOf(e, plainAt + 1, e.length);
          continue;
        }
      }
      const address = typeof e === 'string' ? extract(e) : '';
      if (address !== e) changed.set(index, address);
      if (address === null || address.length === 0) continue;
      // the text after the last "@" (rawDomainOf): empty without one
      const at = findLastAt(address);
      ats[index] = at;
      slots[index] = at < 0 ? domains.slotOf(address, 0, 0) : domains.slotOf(address, at + 1, address.length);
    }
    const addressAt = (index: number): string | null =>
      changed.size > 0 && changed.has(index) ? changed.get(index)! : cells[index]!;
    // the addresses for the lists, read only when some list applies (most chunks: none)
    const list: Iterable<string> = {
      *[Symbol.iterator]() {
        for (let index = 0; index < cells.length; index++) {
          const address = addressAt(index);
          if (address !== null && address.length > 0) yield address;
        }
      },
    };
    // A slot's domain verdict, looked up once per batch rather than once per row.
    const slotVerdicts: (DomainVerdict | undefined)[] = new Array<DomainVerdict | undefined>(
      domains.names.length,
    );
    const lastDomainOf = (index: number, address: string): DomainVerdict | undefined => {
      const slot = slots[index]!;
      let v = slotVerdicts[slot];
      if (v === undefined) slotVerdicts[slot] = v = this.domainAt(address, ats[index]! + 1, address.length);
      return v;
    };
    if (ctx.retryTimeouts) this.forgetTimeouts(domains.names);
    const [flags, unresolved] = await Promise.all([
      this.lists.lookup(ctx.companyId, list),
      this.prepareDomains(domains.names, ctx.deadlineMs),
    ]);
    const flagsOf = (address: string | null): KnownFlags | undefined =>
      flags.size === 0 || address === null ? undefined : flags.get(listEmail(address));
    // past the deadline a domain reads as a resolver timeout, not as an older verdict of it
    const lateDomains = new Map<string, DomainVerdict>();
    for (const raw of unresolved) lateDomains.set(raw, lateDomainVerdict(raw));
    const lateDomainOf = (address: string | null): DomainVerdict | undefined =>
      lateDomains.size === 0 || address === null ? undefined : lateDomains.get(rawDomainOf(address));
    const classifyOne = (address: string | null): Verdict => {
      const late = lateDomainOf(address);
      return late && address !== null
        ? classifyLocal(address, late, flagsOf(address))
        : this.classifyAddress(address, flagsOf(address));
    };
    /** classifyOne of the index-th address, its last "@" and domain known from above. */
    const verdictOfRow = (index: number): Verdict => {
      if (plain[index] === 1) {
        // classify's fast path, its pattern matched above
        const address = cells[index]!;
        const at = ats[index]!;
        if (lateDomains.size === 0 || !lateDomains.has(address.slice(at + 1))) {
          const domain = lastDomainOf(index, address);
          if (domain === TEST_VERDICT) return testVerdict(address);
          if (domain !== undefined)
            return classifyAt(address, at, domain, flagsOf(address), undefined, at * OCTETS);
        }
      }
      const address = addressAt(index);
      const at = ats[index]!;
      // null (several addresses) reads invalid_syntax / multiple_addresses, as classify says
      if (address === null || at < 0) return classifyOne(address);
      if (lateDomains.size > 0 && lateDomains.has(address.slice(at + 1))) return classifyOne(address);
      return this.classifyAddress(address, flagsOf(address), at, lastDomainOf(index, address));
    };
    // the common batch (no list flags, every domain in time) classifies a cell as engine.classify does
    const common = flags.size === 0 && lateDomains.size === 0;
    const verdictOf = common
      ? (email: string) => this.classify(email)
      : (email: string) => classifyOne(typeof email === 'string' ? extract(email) : '');
    return {
      classify: verdictOf,
      // one call less per row on the bulk hot path
      statusOf: common ? (email) => this.classify(email).status : (email) => verdictOf(email).status,
      verdictAt: verdictOfRow,
      probes: this.options.smtpProbe === true,
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
    if (domain === undefined || !shouldProbe(domain, classifyLocal(n.email, domain, known), n.localPart))
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
    return this.rawDomains.find(address, start, end) ?? this.domainOfRaw(address.slice(start, end));
  }

  private domainOfRaw(raw: string): DomainVerdict | undefined {
    const syntax = parseDomain(raw);
    const v =
      syntax.error !== null || syntax.ipLiteral
        ? offlineDomainVerdict(raw, syntax.ascii, syntax.error, syntax.ipLiteral)
        : syntax.ascii === TEST_DOMAIN
          ? TEST_DOMAIN_VERDICT
          : this.cache.peek(syntax.ascii);
    if (v !== undefined) this.rawDomains.remember(raw, v);
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
      if (domain === TEST_VERDICT) return testVerdict(email);
      if (domain !== undefined) return classifyAt(email, plainAt, domain, known, undefined, plainAt * OCTETS);
    }
    return this.classifyAddress(extract(email), known);
  }

  /**
   * classify after extractAddress (null: several addresses). A batch that has looked up the domain
   * after the last "@" (at lastAt) passes it as lastDomain: the same verdict domainAt gives.
   */
  private classifyAddress(
    address: string | null,
    known: KnownFlags | undefined,
    lastAt = -1,
    lastDomain?: DomainVerdict,
  ): Verdict {
    if (address === null) return V.multipleAddresses;
    const plainAt = plainEnd(address);
    if (plainAt > 0 && plainAt <= 64) {
      // a plain dot-atom local part (a second "@" would sit in the domain part, which then fails)
      const domain =
        plainAt === lastAt && lastDomain !== undefined
          ? lastDomain
          : this.domainAt(address, plainAt + 1, address.length);
      if (domain === TEST_VERDICT) return testVerdict(address);
      if (domain !== undefined)
        return classifyAt(address, plainAt, domain, known, undefined, plainAt * OCTETS);
    }
    if (address.length === 0) return V.blank;
    const at = lastAt >= 0 ? lastAt : findLastAt(address);
    if (at < 0) return V.missingAt;
    const domain =
      at === lastAt && lastDomain !== undefined ? lastDomain : this.domainAt(address, at + 1, address.length);
    if (domain === TEST_VERDICT) return testVerdict(address);
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
    const [first, known] = await Promise.all([
      this.resolveDomain(rawDomainOf(n.email)),
      this.knownFlags(ctx.companyId, n.email),
    ]);
    let domain = first;
    if (
      domain.dns === 'dns_timeout' &&
      ctx.retryTimeoutBeforeMs !== undefined &&
      ctx.retryTimeoutBeforeMs - this.nowMs() >= this.domainLookupBoundMs
    ) {
      // a recursive resolver that was still working on the name when the lookup gave up may have it now
      this.forgetTimeouts([rawDomainOf(n.email)]);
      domain = await this.resolveDomain(rawDomainOf(n.email));
    }
    const before = classifyLocal(n.email, domain, known);
    let probe: MailboxProbe | 'off' | 'skipped' = this.options.smtpProbe ? 'skipped' : 'off';
    let reply: SmtpReply | null = null;
    // the proxy failed on this domain's catch-all test: say so rather than "skipped"
    if (this.options.smtpProbe && domain.catchAllProbe === 'proxy_failed') probe = 'proxy_failed';
    if (this.options.smtpProbe && shouldProbe(domain, before, n.localPart) && domain.mailHost) {
      if (isAcceptAllProvider(domain.mxProvider)) probe = 'unverifiable';
      else
        ({ probe, reply } = await probeMailbox(
          domain.mailHost,
          n.email,
          this.smtp,
          this.options.probeCache,
          this.politeness,
          domain.isCatchAll === true,
        ));
    }
    const final =
      typeof probe === 'string' && probe !== 'off' && probe !== 'skipped'
        ? classifyLocal(n.email, domain, known, probe)
        : before;
    return buildResult(n.email, domain, withReplyCode(final, reply), known, probe, reply);
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

  private async knownFlags(companyId: string | undefined, email: string): Promise<KnownFlags | undefined> {
    try {
      return (await this.lists.lookup(companyId, [email])).get(listEmail(email));
    } catch {
      // the lists refine a verdict; an unavailable table must not turn every address into an error
      return undefined;
    }
  }

  private async loadDomain(ascii: string, unicode: string): Promise<{ value: DomainVerdict; ttlMs: number }> {
    let facts: DnsFacts = await lookupMailDomain(
      this.dns,
      ascii,
      this.options.allowPrivateMx ?? false,
      this.lookupMxHost,
      // the MX hosts, asked all at once, share one bound: a question's budget and a second for queueing
      this.dnsTimeoutMs + MX_HOST_QUEUE_MS,
    ).catch((): DnsFacts => ({ dns: 'dns_error', dnsDetail: 'resolver', mxRecords: [], mailHost: null }));
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
        this.politeness,
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
