// The engine's vocabulary: statuses, reasons, the per-domain verdict and the result shape.

/** The five statuses of docs/api.md ("The five statuses"); nothing else ever leaves the engine. */
export const STATUSES = [
  'safe',
  'block_bounce_risk',
  'some_risk',
  'dead_email',
  'do_not_mail_abuse',
] as const;
export type Status = (typeof STATUSES)[number];

/**
 * Every reason, declared once: the machine-readable why of a verdict and the one status it belongs to.
 * The Reason type, the API's enum (OpenAPI) and the docs' reason table all follow this list.
 */
export const STATUS_OF_REASON = {
  blank: 'block_bounce_risk',
  invalid_syntax: 'block_bounce_risk',
  no_such_domain: 'block_bounce_risk',
  null_mx: 'block_bounce_risk',
  no_mail_server: 'block_bounce_risk',
  disposable: 'block_bounce_risk',
  known_dead_non_catch_all: 'block_bounce_risk',
  mailbox_not_found: 'block_bounce_risk',
  mailbox_disabled: 'block_bounce_risk',
  role_abuse: 'do_not_mail_abuse',
  known_complainer: 'do_not_mail_abuse',
  known_dead: 'dead_email',
  mailbox_not_found_catch_all: 'dead_email',
  dns_error: 'some_risk',
  dns_timeout: 'some_risk',
  /** The resolver answers none of the canary domains: its "does not exist" cannot be believed. */
  dns_unavailable: 'some_risk',
  ip_literal: 'some_risk',
  quoted_local_part: 'some_risk',
  smtputf8_local_part: 'some_risk',
  mailbox_full: 'some_risk',
  greylisted: 'some_risk',
  smtp_timeout: 'some_risk',
  role_account: 'some_risk',
  domain_not_resolved: 'some_risk',
  validation_error: 'some_risk',
  catch_all: 'safe',
  accepted: 'safe',
  domain_ok: 'safe',
} as const satisfies Record<string, Status>;
export type Reason = keyof typeof STATUS_OF_REASON;
export const REASONS = Object.keys(STATUS_OF_REASON) as [Reason, ...Reason[]];

/** A verdict without the facts: what classifyLocal returns, one shared frozen object per outcome. */
export interface Verdict {
  readonly status: Status;
  readonly reason: Reason;
  readonly subStatus: string | null;
}

/** What DNS said about a domain's ability to receive mail. */
export type DnsOutcome =
  | 'ok'
  | 'no_such_domain'
  | 'null_mx'
  | 'no_mail_server'
  | 'dns_error'
  | 'dns_timeout'
  /** A negative answer (NXDOMAIN, null MX, no mail server) from a resolver that fails the canaries. */
  | 'dns_unavailable'
  | 'ip_literal'
  | 'skipped';

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** An MX host (or the domain itself as implicit MX) with the addresses mail can be delivered to. */
export interface MailHost {
  host: string;
  addresses: string[];
}

/** The outcome of the SMTP catch-all test of a domain (random local part). */
export type CatchAllProbe =
  | 'catch_all'
  | 'not_catch_all'
  | 'greylisted'
  | 'timeout'
  | 'unreachable'
  | 'blocked'
  /** the SOCKS proxy failed: nothing is known about the domain's server */
  | 'proxy_failed'
  | 'off';

/** Everything the engine knows about one domain; cached per domain, shared by every address at it. */
export interface DomainVerdict {
  /** ASCII (A-label) form, lower case (the raw text when it is not a valid domain). */
  name: string;
  /** Why the domain part is not a mail domain (syntax.ts codes); null when it is one. */
  syntaxError: string | null;
  ipLiteral: boolean;
  /** Unicode (U-label) form when the domain is an IDN, else equal to name. */
  unicodeName: string;
  dns: DnsOutcome;
  /** Detail of dns (e.g. "implicit_mx", "mx_unresolvable", "mx_private", "ESERVFAIL"), or null. */
  dnsDetail: string | null;
  mxRecords: MxRecord[];
  /** The first host (by MX priority) with routable addresses; null when none. */
  mailHost: MailHost | null;
  mxProvider: string | null;
  /** The registrable domain (public suffix + 1) from tldts, or null (IP literal, unknown suffix). */
  registrableDomain: string | null;
  isDisposable: boolean;
  isFreeProvider: boolean;
  /** true/false from the SMTP catch-all test; null when not tested or inconclusive. */
  isCatchAll: boolean | null;
  catchAllProbe: CatchAllProbe;
  didYouMean: string | null;
  /** Verdicts decided by the domain alone, precomputed so classifyLocal only reads them. */
  verdicts: {
    /** Syntax, existence (NXDOMAIN, null MX, no mail server) or disposable: ends classification. */
    gate: Verdict | null;
    /** DNS inconclusive (SERVFAIL, timeout) or IP literal: some_risk unless a list or role says more. */
    risk: Verdict | null;
    /** The catch-all probe was inconclusive (timeout, greylisting): used when no mailbox probe ran. */
    smtpRisk: Verdict | null;
    /** The safe verdict when nothing else applies (domain_ok or catch_all). */
    ok: Verdict;
  };
}

/** Per-address facts from the known-dead / known-complainer lists. */
export interface KnownFlags {
  dead: boolean;
  complainer: boolean;
}

/**
 * The outcome of an SMTP RCPT probe for one mailbox (disabled: it exists but is suspended or inactive).
 * The ones that say nothing about the mailbox:
 * blocked (the server refused us), proxy_failed (the SOCKS proxy failed, not the mail host) and
 * unverifiable (an accept-all provider, probe/accept-all.ts: its acceptance proves nothing).
 */
export type MailboxProbe =
  | 'accepted'
  | 'not_found'
  | 'disabled'
  | 'full'
  | 'greylisted'
  | 'timeout'
  | 'unreachable'
  | 'blocked'
  | 'error'
  | 'proxy_failed'
  | 'unverifiable'
  /** Bulk only: the probe stage could not probe it before the job's deadline; the DNS verdict stands. */
  | 'not_attempted';

/** One SMTP reply: basic code, RFC 3463 enhanced code (null when the server sent none), text. */
export interface SmtpReply {
  code: number;
  enhanced: string | null;
  /** The lines' texts joined by one space (codes and continuation dashes removed). */
  text: string;
}

/** The engine's answer for one address; the endpoint adds requestId, metadata and validatedAt. */
export interface ValidationResult {
  email: string;
  domain: {
    name: string;
    unicodeName: string;
    registrableDomain: string | null;
    mxRecords: MxRecord[];
    mxProvider: string | null;
    isCatchAll: boolean | null;
    isDisposable: boolean;
    isFreeProvider: boolean;
    hasMailServer: boolean | null;
  };
  mailbox: {
    localPart: string;
    isRoleAccount: boolean;
    isAbuseRole: boolean;
    isKnownDead: boolean;
    isKnownComplainer: boolean;
    smtpProbe: MailboxProbe | 'off' | 'skipped';
    /** The reply that decided smtpProbe (text on one line, at most 200 characters); null when none did. */
    smtpReply: SmtpReply | null;
  };
  result: Verdict;
  didYouMean?: string;
}
