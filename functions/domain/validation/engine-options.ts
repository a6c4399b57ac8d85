// The validation engine's options, and how the process settings fill them.
import { logger } from '../../log';
import { countMetric } from '../../metrics';
import type { Settings } from '../../settings';
import type { Clock } from '../../clock';
import { parseDnsServers, type DnsClient } from './dns-lookup';
import { parseDnsCanaries, type DnsHealthEvents } from './dns-health';
import type { KnownAddressLists } from './known-lists';
import type { SmtpProbeOptions } from './smtp-probe';
import type { ProbeVerdictCache } from '../probe/verdict-cache';
import type { Politeness } from '../probe/politeness';
import { politenessFromSettings } from '../probe/polite-session';

export interface EngineOptions {
  /** host:port resolvers; empty: the system's. */
  dnsServers?: readonly string[];
  /** One DNS question's budget, its retries included (DNS_TIMEOUT_MS; default 5000). */
  dnsTimeoutMs?: number;
  /** Tries of one question within that budget; default: as many as fit (1: one try of the whole budget). */
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
  /**
   * The per-host limits (sessions at once, RCPT pace, RCPT per session learnt) its probes keep, shared
   * with every invocation and the bulk probe stage; absent: this process's own, the default limits.
   */
  politeness?: Politeness;
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
      maxRecipientsPerSession: s.SMTP_RECIPIENTS_PER_SESSION,
    },
    ...(s.SMTP_PROBE ? { politeness: politenessFromSettings(s) } : {}),
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

const DEFAULT_SMTP: SmtpProbeOptions = {
  port: 25,
  timeoutMs: 10_000,
  heloName: 'mailvet.local',
  mailFrom: 'probe@mailvet.local',
  greylistAttempts: 3,
  greylistDelayMs: 5_000,
};

/** The SMTP probe settings: the defaults, overridden by each option given. */
export function smtpOptionsOf(options: EngineOptions): SmtpProbeOptions {
  return { ...DEFAULT_SMTP, ...stripUndefined(options.smtp ?? {}) };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
