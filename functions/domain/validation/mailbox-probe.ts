// The engine's glue to the SMTP mailbox probe: when a probe can still change a verdict, the probe itself
// (through the cross-process verdict cache), and the server's own code on the verdict it decided.
import type { Politeness } from '../probe/politeness';
import type { ProbeVerdictCache } from '../probe/verdict-cache';
import { probeRecipients, randomLocalPart, type RecipientResult, type SmtpProbeOptions } from './smtp-probe';
import { subStatusOf } from './smtp-reply';
import type { DomainVerdict, SmtpReply, Verdict } from './types';
import { verdict } from './verdicts';

/**
 * Probe only when the answer can still change the verdict and the domain's server talks to us. On a
 * catch-all domain too: the server may refuse this address explicitly (does not exist, disabled).
 */
export function shouldProbe(domain: DomainVerdict, before: Verdict, localPart: string): boolean {
  if (domain.mailHost === null) return false;
  if (['timeout', 'unreachable', 'proxy_failed'].includes(domain.catchAllProbe)) return false;
  if (!/^[\x21-\x7e]+$/.test(localPart)) return false; // SMTPUTF8 recipients are not probed
  return ['domain_ok', 'role_account', 'greylisted', 'smtp_timeout', 'catch_all'].includes(before.reason);
}

/**
 * The cached probe verdict of an address, or a fresh probe (then cached when conclusive). On a
 * catch-all domain the address is asked in the same session as a random one beside it, so its own
 * refusal shows against the same server's acceptance of anything else.
 */
export async function probeMailbox(
  host: { host: string; addresses: string[] },
  email: string,
  smtp: SmtpProbeOptions,
  cache: ProbeVerdictCache | undefined,
  politeness: Politeness,
  catchAll = false,
): Promise<RecipientResult> {
  const cached = await cache?.get([email]).catch(() => undefined);
  const hit = cached?.get(email.toLowerCase());
  // a cached verdict keeps no reply: it was decided by an earlier probe
  if (hit !== undefined) return { probe: hit, reply: null };
  const recipients = catchAll
    ? [`${randomLocalPart()}@${email.slice(email.lastIndexOf('@') + 1)}`, email]
    : [email];
  const outcomes = await probeRecipients(host.addresses, recipients, smtp, politeness, host.host);
  const outcome = outcomes[outcomes.length - 1] ?? { probe: 'error', reply: null };
  await cache?.put(new Map([[email, outcome.probe]])).catch(() => undefined);
  return outcome;
}

/** Reasons a mailbox probe's reply decides: their subStatus is the server's own code. */
const PROBE_REASONS: ReadonlySet<string> = new Set([
  'mailbox_not_found',
  'mailbox_not_found_catch_all',
  'mailbox_disabled',
  'mailbox_full',
  'greylisted',
]);

/** A verdict the reply decided carries the server's own code (5.1.10, 5.2.1, 550). */
export function withReplyCode(v: Verdict, reply: SmtpReply | null): Verdict {
  return reply !== null && PROBE_REASONS.has(v.reason) ? verdict(v.reason, subStatusOf(reply)) : v;
}
