// What changes the Salesloft fake's records beyond plain inserts: memberships added, reused and removed,
// people deleted, and the signed webhooks each change fires; plus the state and error type they share.
import { createHmac } from 'node:crypto';
import type { Clock, RequestRecord, WebhookSender } from '../http';
import type { OAuthServer } from '../oauth';
import { present, type Membership, type SalesloftStore, type TableName } from './store';

export interface SalesloftState {
  clock: Clock;
  store: SalesloftStore;
  oauth: OAuthServer;
  webhooks: WebhookSender;
  requests: RequestRecord[];
  buckets: Map<number, { resetAt: number; used: number }>;
  settings: {
    apiUrl: string;
    defaultPageSize: number;
    maxPageSize: number;
    costPerMinute: number;
    webhookRetryMs: number;
    retryAfterHeader: boolean;
    blockedUntil: number;
  };
}

/** Error shapes (§2.1 [T]): 403/404 a singular `error`; 422 `errors` mapping each field to messages. */
export class SalesloftError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(JSON.stringify(body));
  }
}
export const notFound = () => new SalesloftError(404, { error: 'Not Found' });
export const invalid = (field: string, message: string) =>
  new SalesloftError(422, { errors: { [field]: [message] } });

/**
 * `DELETE /v2/cadence_memberships/{id}` (§2.5 [T]): refused with 422 while `processing` (§2.5 [P]) and
 * when the person is already off the cadence. Otherwise `current_state` becomes `removed`,
 * `currently_on_cadence` false, and the membership's scheduled emails `cancelled` with `send_after`
 * cleared (the modelling choice of §6.2.6 [UNVERIFIED]).
 */
export function removeMembership(state: SalesloftState, m: Membership): void {
  if (m.current_state === 'processing')
    throw invalid('current_state', 'is processing; no cadence changes are allowed right now');
  if (!m.currently_on_cadence) throw invalid('current_state', 'must be on the cadence to be removed');
  state.store.update('cadence_memberships', m, { current_state: 'removed', currently_on_cadence: false });
  for (const e of state.store.tables.emails.values()) {
    if (
      e.person_id === m.person_id &&
      e.cadence_id === m.cadence_id &&
      ['scheduled', 'pending'].includes(e.status)
    ) {
      state.store.update('emails', e, { status: 'cancelled', send_after: null });
    }
  }
}

/** A deleted person: 404 on GET, gone from lists, `person_deleted` on memberships (§6.2.5, §6.2.8). */
export function deletePerson(state: SalesloftState, id: number): void {
  if (!state.store.remove('people', id)) return;
  for (const m of state.store.tables.cadence_memberships.values()) {
    if (m.person_id === id) state.store.update('cadence_memberships', m, { person_deleted: true });
  }
}

export function upsertMembership(
  state: SalesloftState,
  personId: number,
  cadenceId: number,
  userId: number,
  currentState = 'active',
): Membership {
  const existing = [...state.store.tables.cadence_memberships.values()].find(
    (m) => m.person_id === personId && m.cadence_id === cadenceId,
  );
  const now = state.store.stamp();
  if (existing) {
    if (!existing.currently_on_cadence) {
      state.store.update('cadence_memberships', existing, {
        added_at: now,
        currently_on_cadence: true,
        current_state: currentState,
        user_id: userId,
      });
    }
    return existing;
  }
  return state.store.insert('cadence_memberships', {
    person_id: personId,
    cadence_id: cadenceId,
    user_id: userId,
    added_at: now,
    person_deleted: false,
    currently_on_cadence: true,
    current_state: currentState,
  });
}

/** One event to each enabled subscription of its type, signed (§2.6 [P]); a failing one ends disabled. */
export function deliver(state: SalesloftState, eventType: string, table: TableName, record: unknown): void {
  for (const s of state.store.tables.webhook_subscriptions.values()) {
    if (!s.enabled || s.event_type !== eventType) continue;
    const body = JSON.stringify(present(table, record as never, state.settings.apiUrl, false));
    state.webhooks.send(
      {
        id: `${eventType}-${s.id}-${state.webhooks.deliveries.length + 1}`,
        url: s.callback_url,
        event: eventType,
        body,
        headers: {
          'content-type': 'application/json',
          'x-salesloft-event': eventType,
          // hex HMAC-SHA1 of the raw body keyed with the callback_token (§2.6 [P], not SHA-256)
          'x-salesloft-signature': createHmac('sha1', s.callback_token).update(body).digest('hex'),
        },
      },
      // Retried 3 more times 15 s apart, then marked failed (§2.6 [P]): the fake disables it.
      () => {
        s.enabled = false;
      },
    );
  }
}
