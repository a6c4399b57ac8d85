// What the Safety Net's use cases see of a sales-engagement platform: plain records, whichever platform.
import type { Grant } from './session';

export interface PlatformPerson {
  email: string;
  firstName: string;
  lastName: string;
}

/** A sending mailbox (Outreach mailbox; Salesloft user) and the person who owns it. */
export interface PlatformMailbox {
  externalId: string;
  email: string;
  owner: PlatformPerson | null;
}

/** One owner of a sequence (Outreach sequence; Salesloft cadence). */
export interface PlatformSequence {
  crmSequenceId: string;
  name: string;
  owner: PlatformPerson;
}

/** An email scheduled and not yet sent. */
export interface ScheduledEmail {
  /** The platform's id of the email (Outreach mailing, Salesloft email activity). */
  id: string;
  /** The sending mailbox's address. */
  mailbox: string;
  recipient: string;
  scheduledAt: string | null;
  sequence: { crmSequenceId: string; name: string } | null;
  /** What stopping it acts on: the Outreach sequenceState, the Salesloft person and cadence. */
  stop: { sequenceStateId?: string; personId?: string; cadenceId?: string };
  /** The platform's id of the sending mailbox's owner (Outreach mailbox id; Salesloft user id). */
  ownerRef: string | null;
}

export interface PlatformAdapter {
  readonly platform: 'outreach' | 'salesloft';
  mailboxes(): Promise<PlatformMailbox[]>;
  sequences(): Promise<PlatformSequence[]>;
  scheduledEmails(): Promise<ScheduledEmail[]>;
  /** Stops the email the way the platform allows; 'gone' when there was nothing left to stop. */
  stop(email: ScheduledEmail): Promise<'stopped' | 'gone'>;
  /** The email address of the sending mailbox's owner, or null when the platform does not say. */
  ownerEmail(email: ScheduledEmail): Promise<string | null>;
  /** Registers mailvet's webhook; its id. */
  registerWebhook(url: string, secret: string): Promise<string | null>;
}

/** The OAuth side of a platform: no grant needed yet. */
export interface PlatformOAuth {
  authorizeUrl(redirectUri: string, state: string): string;
  exchangeCode(code: string, redirectUri: string): Promise<Grant>;
}
