// The result body of a single-email validation: the verdict with the facts of its domain and mailbox.
import { localFactsOf } from './classify';
import { rawDomainOf } from './normalize';
import { replyForResult } from './smtp-reply';
import type { DomainVerdict, KnownFlags, MailboxProbe, SmtpReply, ValidationResult, Verdict } from './types';

export function buildResult(
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
