// What changes the Outreach fake's records beyond plain inserts: mailings with their recipients, the
// sequence-state actions, deletes with their dependents, and the signed webhooks each change fires.
import { createHmac, randomUUID } from 'node:crypto';
import type { Clock, RequestRecord, WebhookSender } from '../http';
import type { OAuthServer } from '../oauth';
import { ApiError, type JsonApi } from './jsonapi';
import type { OutreachStore, Row, StoreEvent } from './store';

export interface OutreachState {
  clock: Clock;
  store: OutreachStore;
  oauth: OAuthServer;
  api: JsonApi;
  webhooks: WebhookSender;
  requests: RequestRecord[];
  buckets: Map<number, { resetAt: number; used: number }>;
  settings: {
    apiUrl: string;
    defaultPageSize: number;
    maxPageSize: number;
    truncateCounts: boolean;
    repeatNextLink: boolean;
    rateLimit: number;
    rateLimitWindowMs: number;
    webhookRetryMs: number;
    blockedUntil: number;
    maintenanceUntil: number;
    governanceDenied: Set<string>;
  };
}

export function insertMailing(
  state: OutreachState,
  mailbox: Row,
  prospect: Row,
  to: string,
  input: { scheduledAt: string | null; subject: string; bodyHtml: string; sequenceState?: Row },
): Row {
  const seq = input.sequenceState;
  const now = state.clock.iso();
  const row = state.store.insert(
    'mailing',
    {
      state: input.scheduledAt ? 'scheduled' : 'drafted',
      scheduledAt: input.scheduledAt,
      mailboxAddress: mailbox.attributes.email,
      messageId: null,
      mailingType: seq ? 'sequence' : 'single',
      subject: input.subject,
      bodyHtml: input.bodyHtml,
      bodyText: input.bodyHtml.replace(/<[^>]*>/g, ''),
      bouncedAt: null,
      deliveredAt: null,
      errorReason: null,
      retryAt: null,
      retryCount: 0,
      stateChangedAt: now,
    },
    {
      mailbox: mailbox.id,
      prospect: prospect.id,
      sequence: seq?.toOne.sequence ?? null,
      sequenceState: seq?.id ?? null,
      sequenceStep: seq?.toOne.sequenceStep ?? null,
      template: null,
      user: (mailbox.attributes.userId as number) ?? null,
    },
  );
  const recipient = state.store.insert(
    'recipient',
    { value: to, recipientType: 'to', primary: true, emailHash: null },
    { prospect: prospect.id, user: null, mailing: row.id },
  );
  row.toMany.recipients = [recipient.id];
  return row;
}

/** When each paused mailing was scheduled, for resume. */
const pausedScheduledAt = new WeakMap<Row, string | null>();

/**
 * pause / resume / finish, refused with 422 validationError from the wrong state (§6.1.7). What pause does
 * to the undelivered mailings is [UNVERIFIED] (§1.6); this fake's choice, as §6.1.7 suggests: each
 * `scheduled` activeStepMailing becomes `drafted` with `scheduledAt` cleared (so it cannot send). Resume
 * schedules them again (at their old time, or a minute from now if that has passed). Finish (and DELETE)
 * destroy the undelivered mailings of the state.
 */
export function sequenceStateAction(
  state: OutreachState,
  row: Row,
  action: 'pause' | 'resume' | 'finish',
): void {
  const { store, clock } = state;
  const current = row.attributes.state as string;
  const from = { pause: ['active', 'pending'], resume: ['paused'], finish: ['active', 'pending', 'paused'] }[
    action
  ];
  if (!from.includes(current)) {
    throw new ApiError(
      422,
      'validationError',
      'Validation Error',
      `Cannot ${action} a sequence state that is ${current}.`,
      '/data/attributes/state',
    );
  }
  const now = clock.iso();
  const mailings = store.activeStepMailings(row);
  if (action === 'pause') {
    for (const m of mailings.filter((x) => x.attributes.state === 'scheduled')) {
      pausedScheduledAt.set(m, m.attributes.scheduledAt as string | null);
      store.update('mailing', m, { state: 'drafted', scheduledAt: null, stateChangedAt: now });
    }
    store.update('sequenceState', row, { state: 'paused', stateChangedAt: now, pauseReason: 'manual' });
  } else if (action === 'resume') {
    for (const m of mailings.filter((x) => x.attributes.state === 'drafted')) {
      const old = pausedScheduledAt.get(m);
      const at = old && Date.parse(old) > clock.now() ? old : clock.iso(clock.now() + 60_000);
      store.update('mailing', m, { state: 'scheduled', scheduledAt: at, stateChangedAt: now });
    }
    store.update('sequenceState', row, {
      state: 'active',
      stateChangedAt: now,
      pauseReason: null,
      activeAt: now,
    });
  } else {
    for (const m of mailings) store.remove('mailing', m.id);
    store.update('sequenceState', row, { state: 'finished', stateChangedAt: now }, ['finished']);
  }
}

/** DELETE: the row goes; a sequence state takes its undelivered mailings with it. Others stay dangling. */
export function removeWithDependents(state: OutreachState, type: string, id: number): void {
  const row = state.store.get(type, id);
  if (!row) return;
  if (type === 'sequenceState')
    for (const m of state.store.activeStepMailings(row)) state.store.remove('mailing', m.id);
  state.store.remove(type, id);
}

/** Sends one store event to each matching webhook, signed (§1.7 [P]). */
export function deliver(state: OutreachState, event: StoreEvent): void {
  const { def, action, row, changed } = event;
  for (const hook of state.store.table('webhook').values()) {
    const a = hook.attributes;
    if (a.active !== true) continue;
    if (a.resource !== '*' && a.resource !== def.type) continue;
    if (a.action !== '*' && a.action !== action) continue;
    const full = state.api.resource(def, row, new Map(), new Set());
    const attributes = action === 'destroyed' ? row.attributes : changed;
    const payload = {
      data: {
        type: def.type,
        id: row.id,
        // Create/update payloads carry only the created or changed attributes; destroy the last known.
        attributes,
        relationships: full.relationships,
        meta: { deliveredAt: state.clock.iso(), eventName: `${def.type}.${action}` },
      },
    };
    const body = JSON.stringify(payload);
    const secret = typeof a.secret === 'string' ? a.secret : '';
    state.webhooks.send({
      id: randomUUID(),
      url: a.url as string,
      event: `${def.type}.${action}`,
      body,
      headers: {
        'content-type': 'application/json',
        'outreach-webhook-id': randomUUID(),
        // hex HMAC-SHA256 of the raw body keyed with the webhook's secret (§1.7 [P])
        'outreach-webhook-signature': createHmac('sha256', secret).update(body).digest('hex'),
      },
    });
  }
}

/**
 * A mailing goes out: `mailing.delivered`; its sequence state counts it and moves to the next step
 * (`advanced`) or, after the last, ends (`finished`) (§6.1.9).
 */
export function deliverMailing(state: OutreachState, mailing: Row): void {
  const { store, clock } = state;
  const now = clock.iso();
  store.update('mailing', mailing, { state: 'delivered', deliveredAt: now, stateChangedAt: now }, [
    'delivered',
  ]);
  const seq = store.get('sequenceState', mailing.toOne.sequenceState);
  if (!seq || seq.attributes.state !== 'active') return;
  const step = store.get('sequenceStep', seq.toOne.sequenceStep);
  const next = [...store.table('sequenceStep').values()].find(
    (s) =>
      s.toOne.sequence === seq.toOne.sequence &&
      s.attributes.order === Number(step?.attributes.order ?? 0) + 1,
  );
  const deliverCount = Number(seq.attributes.deliverCount ?? 0) + 1;
  if (next) {
    seq.toOne.sequenceStep = next.id;
    store.update('sequenceState', seq, { deliverCount }, ['advanced']);
  } else {
    store.update('sequenceState', seq, { deliverCount, state: 'finished', stateChangedAt: now }, [
      'finished',
    ]);
  }
}
