// One frozen Verdict per (reason, subStatus): the hot path returns these shared objects and never
// allocates, and the reason -> status mapping lives in this one table.
import type { Reason, Status, Verdict } from './types';

const STATUS_OF_REASON: Readonly<Record<Reason, Status>> = {
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
};

const interned = new Map<string, Verdict>();

/** The shared verdict for a reason and detail; subStatus strings come from small fixed sets. */
export function verdict(reason: Reason, subStatus: string | null = null): Verdict {
  const key = subStatus === null ? reason : `${reason}\u0000${subStatus}`;
  let v = interned.get(key);
  if (!v) {
    v = Object.freeze({ status: STATUS_OF_REASON[reason], reason, subStatus });
    interned.set(key, v);
  }
  return v;
}
