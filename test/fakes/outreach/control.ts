// The Outreach fake's control API: what a test seeds, breaks and reads. Every method is also reachable as
// `POST <base>/_control/<name>` with a JSON array of arguments (see test/fakes/README.md).
import { caseVariant, type RequestRecord, type WebhookDelivery } from '../http';
import { TYPE_BY_NAME, type Row } from './store';
import { deliverMailing, insertMailing, removeWithDependents, type OutreachState } from './records';

/** A record as a test reads it: attributes plus to-one relationship ids. */
export interface OutreachRecord {
  type: string;
  id: number;
  attributes: Record<string, unknown>;
  relationships: Record<string, number | null>;
}

export interface OutreachSeed {
  userIds: number[];
  mailboxIds: number[];
  sequenceIds: number[];
  /** Mailbox emails once case is ignored: what a correct sync lists. */
  distinctMailboxEmails: number;
}

export interface ScheduledOutreachEmail {
  mailingId: number;
  prospectId: number;
  recipientId: number;
  sequenceStateId: number | null;
  sequenceStepId: number | null;
}

export interface OutreachControl {
  /**
   * `users` users with `mailboxesPerUser` (1) mailboxes each (`rep<i>@<domain>`), `sequences` sequences
   * owned round-robin, then `caseVariantDuplicates` extra mailboxes whose email is a case variant of an
   * existing one (`Rep1@EXAMPLE.COM`), each on the same user. The first user consents to OAuth.
   */
  seed(input: {
    users: number;
    mailboxesPerUser?: number;
    sequences?: number;
    caseVariantDuplicates?: number;
    domain?: string;
  }): OutreachSeed;
  addUser(input: { email: string; firstName?: string; lastName?: string }): number;
  addMailbox(input: { userId: number; email: string }): number;
  /** A sequence with `steps` (1) email steps; scheduled emails go out as the prospect's current step. */
  addSequence(input: { ownerId: number; name: string; enabled?: boolean; steps?: number }): number;
  addProspect(input: { emails: string[] }): number;
  /**
   * A mailing `scheduled` at `scheduledAt` (default 10 minutes on) from a mailbox to `to`; with `sequenceId`,
   * as step 1 of that sequence through the prospect's (new or existing active) sequence state. The prospect
   * is found by any of its emails (case ignored) or made with `prospectEmails` (default `[to]`): so the
   * recipient need not be the prospect's first email (§6.3).
   */
  scheduleEmail(input: {
    mailboxId: number;
    to: string;
    sequenceId?: number;
    scheduledAt?: string;
    prospectEmails?: string[];
    subject?: string;
  }): ScheduledOutreachEmail;
  /** The user whose browser consents on `/oauth/authorize`. */
  consentAs(userId: number): void;
  denyConsent(denied: boolean): void;
  expireAccessTokens(): void;
  revokeGrant(userId?: number): number;
  setAccessTokenLifetime(seconds: number): void;
  /** Forgets when tokens were last issued, so the next token request is not held to the 60 s rule. */
  allowTokenNow(): void;
  activeRefreshTokens(userId: number): number;
  tokenRequests(): Array<{ at: number; grantType: string; status: number }>;
  /** Every API call gets 429 for `seconds` from now. */
  rateLimitNow(seconds: number): void;
  setRateLimit(limit: number, windowSeconds?: number): void;
  setPageSizes(input: { defaultSize?: number; maxSize?: number }): void;
  truncateCounts(on: boolean): void;
  /** A fault: from the second page on, links.next repeats the cursor just used (a client must notice). */
  repeatNextLink(on: boolean): void;
  /** Writes to this plural (e.g. `sequenceStates`) get 403 unauthorizedRequest (governance, §6.1.6). */
  denyGovernance(plural: string, denied: boolean): void;
  /** Deletes any record as if done in Outreach: 404 from now on, gone from lists, `destroyed` webhook. */
  deleteRecord(type: string, id: number): boolean;
  /**
   * Merges prospect `mergedId` into `survivorId` the way the reference models it ([UNVERIFIED], §6.1.8):
   * the survivor gains the emails (`prospect.updated`), sequence states, mailings and recipients are
   * pointed at it (`updated`), and the merged prospect is destroyed (`prospect.destroyed`).
   */
  mergeProspects(survivorId: number, mergedId: number): void;
  /** Changes attributes as if edited in Outreach (fires `updated` with the changed ones). */
  updateRecord(type: string, id: number, attributes: Record<string, unknown>): void;
  /**
   * Delivers every scheduled mailing whose time has come (`mailing.delivered`); each one's sequence state
   * advances to its next step (`advanced`) or finishes after the last (`finished`). Returns their ids.
   */
  sendDue(): number[];
  /** Every API call gets 503 scheduledServerMaintenance, Retry-After an ISO time, for `seconds`. */
  maintenanceNow(seconds: number): void;
  /** A delivered (or scheduled) mailing bounces: `mailing.bounced`, and its sequence state `bounced`. */
  bounceMailing(id: number): void;
  record(type: string, id: number): OutreachRecord | null;
  list(type: string): OutreachRecord[];
  /** Ids of sequence states in `paused` state. */
  pausedSequenceStates(): number[];
  dropWebhooks(count: number): void;
  webhookDeliveries(): WebhookDelivery[];
  webhooksSettled(): Promise<void>;
  requests(): RequestRecord[];
  clearRequests(): void;
  advanceClock(ms: number): void;
}

function snapshot(type: string, row: Row | undefined): OutreachRecord | null {
  if (!row) return null;
  return { type, id: row.id, attributes: { ...row.attributes }, relationships: { ...row.toOne } };
}

export function outreachControl(state: OutreachState): OutreachControl {
  const { store, oauth, clock, settings } = state;
  const control: OutreachControl = {
    seed(input) {
      const domain = input.domain ?? 'example.com';
      const userIds: number[] = [];
      const mailboxIds: number[] = [];
      const sequenceIds: number[] = [];
      const emails = new Set<string>();
      for (let i = 1; i <= input.users; i++) {
        const user = store.addUser({ email: `rep${i}@${domain}`, firstName: `Rep${i}` });
        userIds.push(user.id);
        for (let j = 1; j <= (input.mailboxesPerUser ?? 1); j++) {
          const email = j === 1 ? `rep${i}@${domain}` : `rep${i}.${j}@${domain}`;
          mailboxIds.push(store.addMailbox({ userId: user.id, email }).id);
          emails.add(email.toLowerCase());
        }
      }
      for (let k = 1; k <= (input.sequences ?? 0); k++) {
        const ownerId = userIds[(k - 1) % userIds.length]!;
        sequenceIds.push(store.addSequence({ ownerId, name: `Sequence ${k}` }).id);
      }
      for (let d = 0; d < (input.caseVariantDuplicates ?? 0); d++) {
        const original = store.get('mailbox', mailboxIds[d % mailboxIds.length]!)!;
        const userId = original.attributes.userId as number;
        mailboxIds.push(
          store.addMailbox({ userId, email: caseVariant(original.attributes.email as string) }).id,
        );
      }
      if (oauth.consentUserId === null && userIds.length > 0) oauth.consentUserId = userIds[0]!;
      return { userIds, mailboxIds, sequenceIds, distinctMailboxEmails: emails.size };
    },
    addUser(input) {
      const id = store.addUser(input).id;
      if (oauth.consentUserId === null) oauth.consentUserId = id;
      return id;
    },
    addMailbox: (input) => store.addMailbox(input).id,
    addSequence: (input) => store.addSequence(input).id,
    addProspect: (input) => store.addProspect(input).id,
    scheduleEmail(input) {
      const mailbox = store.get('mailbox', input.mailboxId);
      if (!mailbox) throw new Error(`no mailbox ${input.mailboxId}`);
      const prospect =
        store.findProspectByEmail(input.to) ??
        store.addProspect({ emails: input.prospectEmails ?? [input.to] });
      let sequenceState: Row | undefined;
      if (input.sequenceId !== undefined) {
        if (!store.get('sequence', input.sequenceId)) throw new Error(`no sequence ${input.sequenceId}`);
        const step = store.firstStep(input.sequenceId)!;
        sequenceState = [...store.table('sequenceState').values()].find(
          (s) =>
            s.toOne.prospect === prospect.id &&
            s.toOne.sequence === input.sequenceId &&
            s.attributes.state === 'active',
        );
        sequenceState ??= store.insert(
          'sequenceState',
          {
            state: 'active',
            stateChangedAt: clock.iso(),
            pauseReason: null,
            errorReason: null,
            activeAt: clock.iso(),
            scheduleCount: 1,
            deliverCount: 0,
            bounceCount: 0,
            failureCount: 0,
            repliedAt: null,
          },
          {
            prospect: prospect.id,
            sequence: input.sequenceId,
            mailbox: mailbox.id,
            sequenceStep: step.id,
            user: mailbox.attributes.userId as number,
          },
        );
      }
      const mailing = insertMailing(state, mailbox, prospect, input.to, {
        scheduledAt: input.scheduledAt ?? clock.iso(clock.now() + 10 * 60_000),
        subject: input.subject ?? 'Quick question',
        bodyHtml: '<p>Hello</p>',
        sequenceState,
      });
      return {
        mailingId: mailing.id,
        prospectId: prospect.id,
        recipientId: mailing.toMany.recipients![0]!,
        sequenceStateId: sequenceState?.id ?? null,
        sequenceStepId: sequenceState ? (sequenceState.toOne.sequenceStep ?? null) : null,
      };
    },
    consentAs(userId) {
      oauth.consentUserId = userId;
    },
    denyConsent(denied) {
      oauth.consentDenied = denied;
    },
    expireAccessTokens: () => oauth.expireAccessTokens(),
    revokeGrant: (userId) => oauth.revokeGrant(userId),
    setAccessTokenLifetime(seconds) {
      oauth.policy.accessTtlSeconds = seconds;
    },
    allowTokenNow: () => oauth.forgetLastIssue(),
    activeRefreshTokens: (userId) => oauth.activeRefreshTokens(userId),
    tokenRequests: () => [...oauth.tokenRequests],
    rateLimitNow(seconds) {
      settings.blockedUntil = clock.now() + seconds * 1000;
    },
    setRateLimit(limit, windowSeconds) {
      settings.rateLimit = limit;
      if (windowSeconds !== undefined) settings.rateLimitWindowMs = windowSeconds * 1000;
      state.buckets.clear();
    },
    setPageSizes(input) {
      if (input.defaultSize !== undefined) settings.defaultPageSize = input.defaultSize;
      if (input.maxSize !== undefined) settings.maxPageSize = input.maxSize;
    },
    truncateCounts(on) {
      settings.truncateCounts = on;
    },
    repeatNextLink(on) {
      settings.repeatNextLink = on;
    },
    denyGovernance(plural, denied) {
      if (denied) settings.governanceDenied.add(plural);
      else settings.governanceDenied.delete(plural);
    },
    deleteRecord(type, id) {
      if (!store.get(type, id)) return false;
      removeWithDependents(state, type, id);
      return true;
    },
    mergeProspects(survivorId, mergedId) {
      const survivor = store.get('prospect', survivorId);
      const merged = store.get('prospect', mergedId);
      if (!survivor || !merged || survivor === merged) throw new Error('two existing prospects are needed');
      const emails = [...(survivor.attributes.emails as string[])];
      for (const e of merged.attributes.emails as string[]) {
        if (!emails.some((x) => x.toLowerCase() === e.toLowerCase())) emails.push(e);
      }
      store.update('prospect', survivor, { emails });
      for (const type of ['sequenceState', 'mailing', 'recipient']) {
        for (const row of store.table(type).values()) {
          if (row.toOne.prospect === mergedId) store.relink(type, row, 'prospect', survivorId);
        }
      }
      store.remove('prospect', mergedId);
    },
    updateRecord(type, id, attributes) {
      const row = store.get(type, id);
      if (!row) throw new Error(`no ${type} ${id}`);
      store.update(type, row, attributes);
    },
    sendDue() {
      const now = clock.now();
      const due = [...store.table('mailing').values()].filter(
        (m) => m.attributes.state === 'scheduled' && Date.parse(m.attributes.scheduledAt as string) <= now,
      );
      for (const m of due) deliverMailing(state, m);
      return due.map((m) => m.id);
    },
    maintenanceNow(seconds) {
      settings.maintenanceUntil = clock.now() + seconds * 1000;
    },
    bounceMailing(id) {
      const m = store.get('mailing', id);
      if (!m) throw new Error(`no mailing ${id}`);
      store.update('mailing', m, { state: 'bounced', bouncedAt: clock.iso(), stateChangedAt: clock.iso() }, [
        'bounced',
      ]);
      const seq = store.get('sequenceState', m.toOne.sequenceState);
      if (seq)
        store.update('sequenceState', seq, { state: 'bounced', stateChangedAt: clock.iso(), bounceCount: 1 });
    },
    record: (type, id) => (TYPE_BY_NAME.has(type) ? snapshot(type, store.get(type, id)) : null),
    list: (type) => [...store.table(type).values()].map((r) => snapshot(type, r)!),
    pausedSequenceStates: () =>
      [...store.table('sequenceState').values()]
        .filter((s) => s.attributes.state === 'paused')
        .map((s) => s.id),
    dropWebhooks: (count) => state.webhooks.drop(count),
    webhookDeliveries: () => state.webhooks.deliveries.map((d) => ({ ...d, attempts: [...d.attempts] })),
    webhooksSettled: () => state.webhooks.settled(),
    requests: () => [...state.requests],
    clearRequests() {
      state.requests.length = 0;
    },
    advanceClock: (ms) => clock.advance(ms),
  };
  return control;
}
