// The Salesloft fake's records and how each is shown on the wire (plain JSON, `{_href, id}` links).
// Sources: reference §2.5 (fields) and §6.2.
import { randomUUID } from 'node:crypto';
import { Clock, emailKey } from '../http';

interface Base {
  id: number;
  created_at: string;
  updated_at: string;
}

export interface User extends Base {
  guid: string;
  email: string;
  first_name: string;
  last_name: string;
  active: boolean;
  role: string;
  team_id: number;
}

export interface Person extends Base {
  email_address: string | null;
  secondary_email_address: string | null;
  personal_email_address: string | null;
  first_name: string;
  last_name: string;
  do_not_contact: boolean;
  owner_id: number | null;
}

export interface Cadence extends Base {
  name: string;
  team_cadence: boolean;
  shared: boolean;
  archived_at: string | null;
  draft: boolean;
  current_state: 'draft' | 'active' | 'archived' | 'expired' | 'deleted';
  owner_id: number;
  creator_id: number;
}

export interface Step extends Base {
  cadence_id: number;
  type: string;
  day: number;
  step_number: number;
  disabled: boolean;
  name: string;
}

export interface Membership extends Base {
  person_id: number;
  cadence_id: number;
  user_id: number;
  added_at: string;
  person_deleted: boolean;
  currently_on_cadence: boolean;
  // processing / staged / active / scheduled / completed / removed / removed_no_action / reassigned /
  // archived (§2.5 [P])
  current_state: string;
}

export interface Email extends Base {
  user_id: number;
  person_id: number;
  cadence_id: number | null;
  step_id: number | null;
  recipient_email_address: string;
  status: string;
  send_after: string | null;
  sent_at: string | null;
  bounced: boolean;
  subject: string;
}

export interface Subscription extends Base {
  callback_url: string;
  callback_token: string;
  event_type: string;
  enabled: boolean;
  user_guid: string;
}

export interface Tables {
  users: Map<number, User>;
  people: Map<number, Person>;
  cadences: Map<number, Cadence>;
  steps: Map<number, Step>;
  cadence_memberships: Map<number, Membership>;
  emails: Map<number, Email>;
  webhook_subscriptions: Map<number, Subscription>;
}

export type TableName = keyof Tables;

/** The webhook event prefix of each table (§2.6 [P]); emails only ever send `email_updated`. */
const EVENT_NAME: Partial<Record<TableName, string>> = {
  users: 'user',
  people: 'person',
  cadences: 'cadence',
  steps: 'step',
  cadence_memberships: 'cadence_membership',
  emails: 'email',
};

export class SalesloftStore {
  readonly tables: Tables = {
    users: new Map(),
    people: new Map(),
    cadences: new Map(),
    steps: new Map(),
    cadence_memberships: new Map(),
    emails: new Map(),
    webhook_subscriptions: new Map(),
  };
  private ids = new Map<TableName, number>();
  private lastMicros = 0;
  onEvent: (eventType: string, table: TableName, record: Base) => void = () => undefined;

  constructor(private readonly clock: Clock) {}

  /** ISO time with microseconds, strictly increasing, so `updated_at[gt]` cursors work (§2.3 [P]). */
  stamp(): string {
    const micros = Math.max(this.clock.now() * 1000, this.lastMicros + 1);
    this.lastMicros = micros;
    const ms = Math.floor(micros / 1000);
    const iso = new Date(ms).toISOString();
    return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`;
  }

  insert<T extends TableName>(
    table: T,
    fields: Omit<Tables[T] extends Map<number, infer R> ? R : never, keyof Base>,
  ): Tables[T] extends Map<number, infer R> ? R : never {
    const id = this.ids.get(table) ?? 1;
    this.ids.set(table, id + 1);
    const now = this.stamp();
    const record = { ...fields, id, created_at: now, updated_at: now };
    (this.tables[table] as Map<number, Base>).set(id, record as Base);
    const prefix = EVENT_NAME[table];
    if (prefix)
      this.onEvent(table === 'emails' ? 'email_updated' : `${prefix}_created`, table, record as Base);
    return record as never;
  }

  update<R extends Base>(table: TableName, record: R, changes: Partial<R>): void {
    Object.assign(record, changes, { updated_at: this.stamp() });
    const prefix = EVENT_NAME[table];
    if (prefix) this.onEvent(`${prefix}_updated`, table, record);
  }

  remove(table: TableName, id: number): Base | undefined {
    const map = this.tables[table] as Map<number, Base>;
    const record = map.get(id);
    if (!record) return undefined;
    map.delete(id);
    const prefix = EVENT_NAME[table];
    if (prefix) this.onEvent(`${prefix}_deleted`, table, record);
    return record;
  }

  findPerson(email: string): Person | undefined {
    const key = emailKey(email);
    return [...this.tables.people.values()].find((p) =>
      [p.email_address, p.secondary_email_address, p.personal_email_address].some(
        (e) => e && emailKey(e) === key,
      ),
    );
  }

  addUser(input: {
    email: string;
    firstName?: string;
    lastName?: string;
    teamId?: number;
    role?: string;
  }): User {
    return this.insert('users', {
      guid: randomUUID(),
      email: input.email,
      first_name: input.firstName ?? input.email.split('@')[0]!,
      last_name: input.lastName ?? 'Rep',
      active: true,
      role: input.role ?? 'User',
      team_id: input.teamId ?? 1,
    });
  }

  addCadence(input: { ownerId: number; name: string; teamCadence?: boolean }): Cadence {
    if (!this.tables.users.has(input.ownerId)) throw new Error(`no user ${input.ownerId}`);
    const cadence = this.insert('cadences', {
      name: input.name,
      team_cadence: input.teamCadence ?? false,
      shared: false,
      archived_at: null,
      draft: false,
      current_state: 'active',
      owner_id: input.ownerId,
      creator_id: input.ownerId,
    });
    this.insert('steps', {
      cadence_id: cadence.id,
      type: 'email',
      day: 1,
      step_number: 1,
      disabled: false,
      name: 'Day 1: Email',
    });
    return cadence;
  }
}

type Link = { _href: string; id: number } | null;

/** The wire shape of each record. */
export function present(
  table: TableName,
  r: Base,
  apiUrl: string,
  canReadContents: boolean,
): Record<string, unknown> {
  const link = (plural: string, id: number | null): Link =>
    id === null ? null : { _href: `${apiUrl}/${plural}/${id}`, id };
  const base = { id: r.id, created_at: r.created_at, updated_at: r.updated_at };
  switch (table) {
    case 'users': {
      const u = r as User;
      return {
        ...base,
        guid: u.guid,
        name: `${u.first_name} ${u.last_name}`,
        first_name: u.first_name,
        last_name: u.last_name,
        email: u.email,
        active: u.active,
        role: { id: u.role },
        team: link('team', u.team_id),
        time_zone: 'US/Eastern',
      };
    }
    case 'people': {
      const p = r as Person;
      return {
        ...base,
        first_name: p.first_name,
        last_name: p.last_name,
        display_name: `${p.first_name} ${p.last_name}`,
        email_address: p.email_address,
        secondary_email_address: p.secondary_email_address,
        personal_email_address: p.personal_email_address,
        do_not_contact: p.do_not_contact,
        owner: link('users', p.owner_id),
        account: null,
        crm_id: null,
      };
    }
    case 'cadences': {
      const c = r as Cadence;
      return {
        ...base,
        name: c.name,
        team_cadence: c.team_cadence,
        shared: c.shared,
        archived_at: c.archived_at,
        draft: c.draft,
        current_state: c.current_state,
        cadence_function: 'outbound',
        external_identifier: null,
        tags: [],
        remove_bounces_enabled: true,
        remove_replies_enabled: true,
        owner: link('users', c.owner_id),
        creator: link('users', c.creator_id),
        added_stage: null,
        bounced_stage: null,
        replied_stage: null,
        finished_stage: null,
        groups: [],
      };
    }
    case 'steps': {
      const s = r as Step;
      return {
        ...base,
        type: s.type,
        day: s.day,
        step_number: s.step_number,
        disabled: s.disabled,
        name: s.name,
        cadence: link('cadences', s.cadence_id),
      };
    }
    case 'cadence_memberships': {
      const m = r as Membership;
      return {
        ...base,
        added_at: m.added_at,
        person_deleted: m.person_deleted,
        currently_on_cadence: m.currently_on_cadence,
        current_state: m.current_state,
        cadence: link('cadences', m.cadence_id),
        // The person link stays after the person is deleted; it then answers 404 (§6.2.8).
        person: link('people', m.person_id),
        user: link('users', m.user_id),
        latest_action: null,
        counts: { views: 0, clicks: 0, replies: 0, calls: 0, sent_emails: 0, bounces: 0 },
      };
    }
    case 'emails': {
      const e = r as Email;
      return {
        ...base,
        recipient_email_address: e.recipient_email_address,
        status: e.status,
        bounced: e.bounced,
        send_after: e.send_after,
        sent_at: e.sent_at,
        // Subject and body need the privileged email_contents:read scope (§2.5 [S]); blank without it.
        subject: canReadContents ? e.subject : null,
        view_tracking: true,
        click_tracking: true,
        personalization: '0.0',
        counts: { clicks: 0, views: 0, replies: 0, unique_devices: 0, unique_locations: 0, attachments: 0 },
        user: link('users', e.user_id),
        recipient: link('people', e.person_id),
        mailing: null,
        action: null,
        crm_activity: null,
        cadence: link('cadences', e.cadence_id),
        step: link('steps', e.step_id),
      };
    }
    case 'webhook_subscriptions': {
      const s = r as Subscription;
      return {
        id: s.id,
        callback_url: s.callback_url,
        callback_token: s.callback_token,
        event_type: s.event_type,
        enabled: s.enabled,
        user_guid: s.user_guid,
        tenant_id: 1,
      };
    }
  }
}
