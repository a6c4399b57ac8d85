// The Salesloft fake's control API: what a test seeds, breaks and reads. Every method is also reachable as
// `POST <base>/_control/<name>` with a JSON array of arguments (see test/fakes/README.md).
import { caseVariant, type RequestRecord, type WebhookDelivery } from '../http';
import type { Membership, TableName } from './store';
import { deletePerson, removeMembership, upsertMembership, type SalesloftState } from './records';

export interface SalesloftSeed {
  userIds: number[];
  cadenceIds: number[];
  /** User emails once case is ignored: what a correct sync lists. */
  distinctUserEmails: number;
}

export interface ScheduledSalesloftEmail {
  emailId: number;
  personId: number;
  membershipId: number | null;
  stepId: number | null;
}

export interface SalesloftControl {
  /**
   * `users` users (`rep<i>@<domain>`, team 1), `cadences` cadences owned round-robin, then
   * `caseVariantDuplicates` extra users whose email is a case variant of an existing one
   * (`Rep1@EXAMPLE.COM`). The first user is an Admin and consents to OAuth.
   */
  seed(input: {
    users: number;
    cadences?: number;
    caseVariantDuplicates?: number;
    domain?: string;
  }): SalesloftSeed;
  /** A user; `role` 'User' (default) sees only themselves in `GET /users`, 'Admin' sees everyone. */
  addUser(input: {
    email: string;
    firstName?: string;
    lastName?: string;
    teamId?: number;
    role?: 'User' | 'Admin';
  }): number;
  addCadence(input: { ownerId: number; name: string; teamCadence?: boolean }): number;
  addPerson(input: { emails: string[] }): number;
  /**
   * An email `scheduled` with `send_after` (default 10 minutes on) from a user to `to`; with `cadenceId`,
   * as step 1 of that cadence through the person's membership (new, reused, or re-added). The person is
   * found by any of their three addresses (case ignored) or made from `personEmails` (default `[to]`: primary,
   * secondary, personal). `membershipState` sets the membership's current_state (`scheduled`; `processing`
   * makes a DELETE 422).
   */
  scheduleEmail(input: {
    userId: number;
    to: string;
    cadenceId?: number;
    sendAfter?: string;
    personEmails?: string[];
    membershipState?: string;
    subject?: string;
  }): ScheduledSalesloftEmail;
  setMembershipState(id: number, currentState: string): void;
  consentAs(userId: number): void;
  denyConsent(denied: boolean): void;
  expireAccessTokens(): void;
  revokeGrant(userId?: number): number;
  setAccessTokenLifetime(seconds: number): void;
  activeRefreshTokens(userId: number): number;
  tokenRequests(): Array<{ at: number; grantType: string; status: number }>;
  /** Every API call gets 429 for `seconds` from now. */
  rateLimitNow(seconds: number): void;
  setCostPerMinute(cost: number): void;
  setPageSizes(input: { defaultSize?: number; maxSize?: number }): void;
  /** Deletes a person (memberships get person_deleted) or a cadence (memberships archived, emails cancelled). */
  deleteRecord(table: 'people' | 'cadences' | 'users', id: number): boolean;
  archiveCadence(id: number): void;
  /** Removes a membership as a rep would in Salesloft (same effects as the DELETE). */
  removeMembership(id: number): void;
  /** Sends every scheduled email whose send_after has come; returns their ids. */
  sendDue(): number[];
  record(table: TableName, id: number): Record<string, unknown> | null;
  list(table: TableName): Array<Record<string, unknown>>;
  /** Ids of memberships taken off their cadence by a removal. */
  removedMemberships(): number[];
  dropWebhooks(count: number): void;
  webhookDeliveries(): WebhookDelivery[];
  webhooksSettled(): Promise<void>;
  requests(): RequestRecord[];
  clearRequests(): void;
  advanceClock(ms: number): void;
}

export function salesloftControl(state: SalesloftState): SalesloftControl {
  const { store, oauth, clock, settings } = state;
  const archiveMemberships = (cadenceId: number) => {
    for (const m of store.tables.cadence_memberships.values()) {
      if (m.cadence_id !== cadenceId) continue;
      store.update('cadence_memberships', m, { current_state: 'archived', currently_on_cadence: false });
      for (const e of store.tables.emails.values()) {
        if (e.cadence_id === cadenceId && e.person_id === m.person_id && e.status === 'scheduled') {
          store.update('emails', e, { status: 'cancelled', send_after: null });
        }
      }
    }
  };
  const control: SalesloftControl = {
    seed(input) {
      const domain = input.domain ?? 'example.com';
      const userIds: number[] = [];
      const cadenceIds: number[] = [];
      for (let i = 1; i <= input.users; i++) {
        // The first seeded user is the team's admin, the one who connects by default.
        const role = i === 1 ? 'Admin' : 'User';
        userIds.push(store.addUser({ email: `rep${i}@${domain}`, firstName: `Rep${i}`, role }).id);
      }
      for (let k = 1; k <= (input.cadences ?? 0); k++) {
        cadenceIds.push(
          store.addCadence({ ownerId: userIds[(k - 1) % userIds.length]!, name: `Cadence ${k}` }).id,
        );
      }
      for (let d = 0; d < (input.caseVariantDuplicates ?? 0); d++) {
        const original = store.tables.users.get(userIds[d % userIds.length]!)!;
        userIds.push(
          store.addUser({ email: caseVariant(original.email), firstName: original.first_name }).id,
        );
      }
      if (oauth.consentUserId === null && userIds.length > 0) oauth.consentUserId = userIds[0]!;
      return {
        userIds,
        cadenceIds,
        distinctUserEmails: new Set([...store.tables.users.values()].map((u) => u.email.toLowerCase())).size,
      };
    },
    addUser(input) {
      const id = store.addUser(input).id;
      if (oauth.consentUserId === null) oauth.consentUserId = id;
      return id;
    },
    addCadence: (input) => store.addCadence(input).id,
    addPerson(input) {
      const [primary = null, secondary = null, personal = null] = input.emails;
      return store.insert('people', {
        email_address: primary,
        secondary_email_address: secondary,
        personal_email_address: personal,
        first_name: 'Pat',
        last_name: 'Prospect',
        do_not_contact: false,
        owner_id: null,
      }).id;
    },
    scheduleEmail(input) {
      if (!store.tables.users.has(input.userId)) throw new Error(`no user ${input.userId}`);
      const personId =
        store.findPerson(input.to)?.id ?? control.addPerson({ emails: input.personEmails ?? [input.to] });
      let membership: Membership | null = null;
      let stepId: number | null = null;
      if (input.cadenceId !== undefined) {
        const cadence = store.tables.cadences.get(input.cadenceId);
        if (!cadence) throw new Error(`no cadence ${input.cadenceId}`);
        stepId = [...store.tables.steps.values()].find((s) => s.cadence_id === cadence.id)?.id ?? null;
        membership = upsertMembership(
          state,
          personId,
          cadence.id,
          input.userId,
          input.membershipState ?? 'scheduled',
        );
      }
      const email = store.insert('emails', {
        user_id: input.userId,
        person_id: personId,
        cadence_id: input.cadenceId ?? null,
        step_id: stepId,
        recipient_email_address: input.to,
        status: 'scheduled',
        send_after: input.sendAfter ?? clock.iso(clock.now() + 10 * 60_000),
        sent_at: null,
        bounced: false,
        subject: input.subject ?? 'Quick question',
      });
      return { emailId: email.id, personId, membershipId: membership?.id ?? null, stepId };
    },
    setMembershipState(id, currentState) {
      const m = store.tables.cadence_memberships.get(id);
      if (!m) throw new Error(`no membership ${id}`);
      store.update('cadence_memberships', m, { current_state: currentState });
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
    activeRefreshTokens: (userId) => oauth.activeRefreshTokens(userId),
    tokenRequests: () => [...oauth.tokenRequests],
    rateLimitNow(seconds) {
      settings.blockedUntil = clock.now() + seconds * 1000;
    },
    setCostPerMinute(cost) {
      settings.costPerMinute = cost;
      state.buckets.clear();
    },
    setPageSizes(input) {
      if (input.defaultSize !== undefined) settings.defaultPageSize = input.defaultSize;
      if (input.maxSize !== undefined) settings.maxPageSize = input.maxSize;
    },
    deleteRecord(table, id) {
      if (!store.tables[table].has(id)) return false;
      if (table === 'people') deletePerson(state, id);
      else if (table === 'cadences') {
        archiveMemberships(id);
        store.remove('cadences', id);
      } else store.remove(table, id);
      return true;
    },
    archiveCadence(id) {
      const cadence = store.tables.cadences.get(id);
      if (!cadence) throw new Error(`no cadence ${id}`);
      store.update('cadences', cadence, { current_state: 'archived', archived_at: store.stamp() });
      archiveMemberships(id);
    },
    removeMembership(id) {
      const m = store.tables.cadence_memberships.get(id);
      if (!m) throw new Error(`no membership ${id}`);
      removeMembership(state, m);
    },
    sendDue() {
      const now = clock.now();
      const due = [...store.tables.emails.values()].filter(
        (e) => e.status === 'scheduled' && e.send_after !== null && Date.parse(e.send_after) <= now,
      );
      for (const e of due)
        store.update('emails', e, { status: 'sent', sent_at: store.stamp(), send_after: null });
      return due.map((e) => e.id);
    },
    record(table, id) {
      const r = (store.tables[table] as Map<number, object>).get(id);
      return r ? { ...r } : null;
    },
    list: (table) => [...(store.tables[table] as Map<number, object>).values()].map((r) => ({ ...r })),
    removedMemberships: () =>
      [...store.tables.cadence_memberships.values()]
        .filter((m) => m.current_state === 'removed')
        .map((m) => m.id),
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
