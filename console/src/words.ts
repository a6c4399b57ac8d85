// What the API's codes mean, in words for the people who read the console. The types come from the
// engine, so a new status or reason fails the console's type-check until it has words here.
import type { Reason, Status } from '../../functions/domain/validation/types';

export const statuses: readonly Status[] = [
  'safe',
  'some_risk',
  'block_bounce_risk',
  'dead_email',
  'do_not_mail_abuse',
];

export const statusWords: Record<Status, { label: string; meaning: string; color: string }> = {
  safe: { label: 'Safe', meaning: 'Valid and safe to send to.', color: '#1a7f37' },
  some_risk: {
    label: 'Some risk',
    meaning: 'Inconclusive: risk factors were found. Send with care.',
    color: '#9a6700',
  },
  block_bounce_risk: {
    label: 'Bounce risk',
    meaning: 'Invalid: sending will hard-bounce.',
    color: '#cf222e',
  },
  dead_email: {
    label: 'Dead',
    meaning: 'An invalid account on a domain that accepts everything: it will not bounce, nobody reads it.',
    color: '#6e7781',
  },
  do_not_mail_abuse: {
    label: 'Do not mail',
    meaning: 'Valid, but a high risk of spam complaints or traps.',
    color: '#8250df',
  },
};

export const reasonWords: Record<Reason, string> = {
  blank: 'The address is empty.',
  invalid_syntax: 'The address is not written correctly.',
  no_such_domain: 'The domain does not exist.',
  null_mx: 'The domain says it receives no mail.',
  no_mail_server: 'The domain has no mail server that can be reached.',
  disposable: 'The domain hands out throwaway addresses.',
  role_abuse: 'An abuse or postmaster address: mailing it invites complaints.',
  known_complainer: 'This address is known to complain about mail it receives.',
  known_dead: 'This address is known to be abandoned.',
  known_dead_non_catch_all: 'This address is known to be abandoned and its domain rejects it.',
  mailbox_not_found: 'The mail server says this mailbox does not exist.',
  mailbox_not_found_catch_all:
    'The mail server rejected this mailbox although it accepts made-up ones: the account is dead.',
  mailbox_disabled: 'The mail server says this account is disabled or inactive.',
  dns_error: 'The domain could not be looked up (its DNS answered with an error).',
  dns_timeout: 'The domain could not be looked up in time.',
  ip_literal: 'The address names a server by IP address rather than a domain.',
  quoted_local_part: 'The address uses quotes, which many mail systems mishandle.',
  smtputf8_local_part: 'The name before @ has non-ASCII letters, which not every server accepts.',
  mailbox_full: 'The mailbox is full.',
  greylisted: 'The mail server asked to try later every time.',
  smtp_timeout: 'The mail server stopped answering.',
  role_account: 'A shared role address (info@, sales@, ...) rather than a person.',
  domain_not_resolved: 'The domain was not checked.',
  validation_error: 'Something went wrong while checking; try again.',
  catch_all: 'The domain accepts mail for any address, so this one cannot be confirmed further.',
  accepted: 'The mail server accepted this mailbox.',
  domain_ok: 'The domain receives mail and nothing negative is known about the address.',
};

export function reasonText(reason: string): string {
  return (reasonWords as Record<string, string>)[reason] ?? reason.replace(/_/g, ' ');
}

/**
 * How far a processing job is, after its state. Until the scan has counted the rows the total is 0:
 * say what is happening rather than "0 of 0 emails".
 */
export function jobProgressWords(job: {
  status: string;
  processedEmails: number;
  totalEmails: number;
}): string | undefined {
  if (job.status !== 'processing') return undefined;
  if (job.totalEmails === 0) return 'reading the file and counting its rows';
  const count = (n: number) => n.toLocaleString('en');
  return `${count(job.processedEmails)} of ${count(job.totalEmails)} emails`;
}

export const jobStateWords: Record<string, string> = {
  awaiting_upload: 'Waiting for the file',
  processing: 'Processing',
  completed: 'Completed',
  failed: 'Failed',
  expired: 'Expired: the file never arrived',
};
