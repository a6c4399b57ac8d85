// The Outreach fake's records: every resource type it serves, declared once (attributes, to-one and
// to-many relationships, which relationship filters the vendor allows), and the mutations that fire
// webhooks. Sources: reference §1.5 (the vendor OpenAPI [P]) and §6.1.
import { randomUUID } from 'node:crypto';
import { Clock, emailKey } from '../http';

export interface Row {
  id: number;
  attributes: Record<string, unknown>;
  /** To-one relationships by name: the target's id, or null. A target may be gone (dangling, §6.1.8). */
  toOne: Record<string, number | null>;
  /** To-many linkage kept only where `include=` can expand it (mailing.recipients). */
  toMany: Record<string, number[]>;
}

export interface TypeDef {
  type: string;
  plural: string;
  /** Relationship name -> target type. */
  toOne: Record<string, string>;
  /** Relationship name -> the `links.related` query on the target collection (`{id}` is this row's id). */
  toMany: Record<string, string>;
  /** Relationship filters beyond `[id]` that the OpenAPI allows (§1.2 [P]); '*' = any attribute. */
  relationFilters?: Record<string, string[] | '*'>;
  /** The webhook resource name; absent when the vendor sends no webhooks for it (mailbox, §1.7). */
  webhook?: boolean;
  methods: Array<'list' | 'get' | 'create' | 'delete'>;
}

const TYPES: TypeDef[] = [
  {
    type: 'user',
    plural: 'users',
    toOne: { mailbox: 'mailbox' },
    toMany: { mailboxes: 'mailboxes?filter[user][id]={id}' },
    webhook: true,
    methods: ['list', 'get'], // no DELETE on users (§1.5 [P])
  },
  {
    type: 'mailbox',
    plural: 'mailboxes',
    toOne: { user: 'user', creator: 'user' },
    toMany: { mailings: 'mailings?filter[mailbox][id]={id}' },
    methods: ['list', 'get', 'delete'],
  },
  {
    type: 'sequence',
    plural: 'sequences',
    toOne: { owner: 'user', creator: 'user' },
    toMany: {
      sequenceStates: 'sequenceStates?filter[sequence][id]={id}',
      sequenceSteps: 'sequenceSteps?filter[sequence][id]={id}',
      mailings: 'mailings?filter[sequence][id]={id}',
    },
    relationFilters: { owner: ['email', 'firstName', 'lastName'] },
    webhook: true,
    methods: ['list', 'get', 'delete'],
  },
  {
    type: 'sequenceStep',
    plural: 'sequenceSteps',
    toOne: { sequence: 'sequence' },
    toMany: { mailings: 'mailings?filter[sequenceStep][id]={id}' },
    methods: ['list', 'get'],
  },
  {
    type: 'prospect',
    plural: 'prospects',
    toOne: {},
    toMany: {
      mailings: 'mailings?filter[prospect][id]={id}',
      sequenceStates: 'sequenceStates?filter[prospect][id]={id}',
    },
    webhook: true,
    methods: ['list', 'get', 'delete'],
  },
  {
    type: 'sequenceState',
    plural: 'sequenceStates',
    toOne: {
      prospect: 'prospect',
      sequence: 'sequence',
      mailbox: 'mailbox',
      sequenceStep: 'sequenceStep',
      user: 'user',
    },
    toMany: {
      activeStepMailings: 'mailings?filter[sequenceState][id]={id}&filter[state]=scheduled,drafted,queued',
      mailings: 'mailings?filter[sequenceState][id]={id}',
    },
    // "sequenceState → mailbox: filter by id and email; → prospect: id and emails; → sequence: any" (§1.2 [P])
    relationFilters: { mailbox: ['email'], prospect: ['emails'], sequence: '*' },
    webhook: true,
    methods: ['list', 'get', 'delete'], // no PATCH (§1.5 [P])
  },
  {
    type: 'mailing',
    plural: 'mailings',
    toOne: {
      mailbox: 'mailbox',
      prospect: 'prospect',
      sequence: 'sequence',
      sequenceState: 'sequenceState',
      sequenceStep: 'sequenceStep',
      template: 'template',
      user: 'user',
    },
    toMany: { recipients: 'recipients?filter[mailing][id]={id}' },
    webhook: true,
    methods: ['list', 'get', 'create'], // GET and POST only: no PATCH, no DELETE (§1.5, §6.1.7 [P])
  },
  {
    type: 'recipient',
    plural: 'recipients',
    // `mailing` is not in the OpenAPI's recipient relationships: the fake adds it so that the mailing's
    // `links.related` (`/recipients?filter[mailing][id]=X`) has something to filter on. [UNVERIFIED]
    toOne: { prospect: 'prospect', user: 'user', mailing: 'mailing' },
    toMany: {},
    methods: ['list', 'get'],
  },
  {
    type: 'webhook',
    plural: 'webhooks',
    toOne: { authorizer: 'user', creator: 'user' },
    toMany: {},
    methods: ['list', 'get', 'create', 'delete'],
  },
];

export const TYPE_BY_NAME = new Map(TYPES.map((t) => [t.type, t]));
export const TYPE_BY_PLURAL = new Map(TYPES.map((t) => [t.plural, t]));

/** What a change fires: `<type>.<action>` with the attributes that changed (all of them for destroyed). */
export type StoreEvent = { def: TypeDef; action: string; row: Row; changed: Record<string, unknown> };

export class OutreachStore {
  private tables = new Map<string, Map<number, Row>>(TYPES.map((t) => [t.type, new Map()]));
  private nextId = new Map<string, number>();
  onEvent: (event: StoreEvent) => void = () => undefined;

  constructor(private readonly clock: Clock) {}

  table(type: string): Map<number, Row> {
    const table = this.tables.get(type);
    if (!table) throw new Error(`unknown type ${type}`);
    return table;
  }

  get(type: string, id: number | null | undefined): Row | undefined {
    return id === null || id === undefined ? undefined : this.table(type).get(id);
  }

  insert(type: string, attributes: Record<string, unknown>, toOne: Record<string, number | null> = {}): Row {
    const id = this.nextId.get(type) ?? 1;
    this.nextId.set(type, id + 1);
    const now = this.clock.iso();
    const row: Row = { id, attributes: { ...attributes, createdAt: now, updatedAt: now }, toOne, toMany: {} };
    this.table(type).set(id, row);
    this.fire(type, 'created', row, row.attributes);
    return row;
  }

  /** Sets attributes; fires `updated` with only those that changed (§1.7 [P]), plus extra events. */
  update(type: string, row: Row, changes: Record<string, unknown>, extraActions: string[] = []): void {
    const changed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(changes)) {
      if (JSON.stringify(row.attributes[k]) !== JSON.stringify(v)) changed[k] = v;
    }
    if (Object.keys(changed).length === 0) return;
    changed.updatedAt = this.clock.iso();
    Object.assign(row.attributes, changed);
    this.fire(type, 'updated', row, changed);
    for (const action of extraActions) this.fire(type, action, row, changed);
  }

  /** Points a to-one relationship elsewhere; fires `updated` (payloads carry relationships in full). */
  relink(type: string, row: Row, rel: string, id: number | null): void {
    row.toOne[rel] = id;
    row.attributes.updatedAt = this.clock.iso();
    this.fire(type, 'updated', row, { updatedAt: row.attributes.updatedAt });
  }

  /** Removes a row: 404 from now on, gone from collections, `destroyed` with the last known attributes. */
  remove(type: string, id: number): Row | undefined {
    const row = this.table(type).get(id);
    if (!row) return undefined;
    this.table(type).delete(id);
    this.fire(type, 'destroyed', row, row.attributes);
    return row;
  }

  private fire(type: string, action: string, row: Row, changed: Record<string, unknown>): void {
    const def = TYPE_BY_NAME.get(type)!;
    if (def.webhook) this.onEvent({ def, action, row, changed });
  }

  // --- records the control API seeds ------------------------------------------------------------------

  addUser(input: { email: string; firstName?: string; lastName?: string }): Row {
    const firstName = input.firstName ?? input.email.split('@')[0]!;
    const lastName = input.lastName ?? 'Rep';
    return this.insert(
      'user',
      {
        email: input.email,
        firstName,
        lastName,
        name: `${firstName} ${lastName}`,
        username: input.email.split('@')[0],
        locked: false,
        userGuid: randomUUID(),
      },
      { mailbox: null },
    );
  }

  addMailbox(input: { userId: number; email: string }): Row {
    const user = this.get('user', input.userId);
    if (!user) throw new Error(`no user ${input.userId}`);
    const row = this.insert(
      'mailbox',
      {
        email: input.email,
        userId: input.userId,
        emailProvider: 'gmail',
        providerType: 'google_oauth2',
        sendDisabled: false,
        syncDisabled: false,
        sendErroredAt: null,
        sendSuccessAt: null,
        syncSuccessAt: null,
        maxMailingsPerDay: 500,
        maxMailingsPerWeek: 5000, // Outreach caps a mailbox at 5,000 emails a week (§1.4 [P])
        sendThreshold: 2,
        sendPeriod: 120,
        username: input.email,
      },
      { user: input.userId, creator: input.userId },
    );
    if (user.toOne.mailbox === null) user.toOne.mailbox = row.id;
    return row;
  }

  addSequence(input: { ownerId: number; name: string; enabled?: boolean; steps?: number }): Row {
    if (!this.get('user', input.ownerId)) throw new Error(`no user ${input.ownerId}`);
    const enabled = input.enabled ?? true;
    const row = this.insert(
      'sequence',
      {
        name: input.name,
        enabled,
        enabledAt: enabled ? this.clock.iso() : null,
        locked: false,
        lockedAt: null,
        shareType: 'shared',
        sequenceType: 'interval',
        scheduleCount: 0,
        throttlePaused: false,
        tags: [],
        description: '',
      },
      { owner: input.ownerId, creator: input.ownerId },
    );
    for (let order = 1; order <= (input.steps ?? 1); order++) {
      this.insert(
        'sequenceStep',
        { stepType: 'auto_email', order, displayName: `Step ${order}` },
        { sequence: row.id },
      );
    }
    return row;
  }

  addProspect(input: { emails: string[]; firstName?: string; lastName?: string }): Row {
    return this.insert('prospect', {
      emails: [...input.emails],
      firstName: input.firstName ?? 'Pat',
      lastName: input.lastName ?? 'Prospect',
      emailOptedOut: false,
      optedOut: false,
      emailsOptStatus: null,
    });
  }

  findProspectByEmail(email: string): Row | undefined {
    const key = emailKey(email);
    return [...this.table('prospect').values()].find((p) =>
      (p.attributes.emails as string[]).some((e) => emailKey(e) === key),
    );
  }

  firstStep(sequenceId: number): Row | undefined {
    return [...this.table('sequenceStep').values()].find((s) => s.toOne.sequence === sequenceId);
  }

  /** Undelivered mailings of a sequence state's current step (the OpenAPI's activeStepMailings). */
  activeStepMailings(state: Row): Row[] {
    return [...this.table('mailing').values()].filter(
      (m) =>
        m.toOne.sequenceState === state.id &&
        m.toOne.sequenceStep === state.toOne.sequenceStep &&
        ['scheduled', 'drafted', 'queued'].includes(m.attributes.state as string),
    );
  }
}
