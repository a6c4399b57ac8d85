// Storage of the politeness state towards each MX host, shared by every concurrent invocation
// (docs/bulk.md, "Politeness"):
// - at most N sessions at once per host: N lease items (MXHOST#<host> / SESSION#<n>), each claimed with a
//   conditional put (free, or its holder's lease expired) and released by its holder;
// - at most M RCPT per second per host: one schedule item per host holding its next free RCPT slot
//   (slots are 1000/M ms apart, a generic cell rate algorithm). A taker books a run of slots with one
//   conditional write and sends each RCPT no earlier than its slot, so no second ever sees more than M,
//   whichever invocations send them; a run is booked at most `bookingHorizonMs` ahead;
// - what a host showed it takes (fewer sessions at once, fewer RCPT per session), learnt from its
//   refusals about the session: one limits item per host (MXHOST#<host> / LIMITS), kept
//   `learnedLimitsMs` (the table's TTL), read by every invocation before it opens a session there.
import { systemClock, type Clock } from '../clock';
import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../clients/dynamodb';
import { isConditionFailure } from './conditions';
import { scanPages, send } from './dynamodb';
import { mxHostLimitsEntity, mxRcptScheduleEntity, mxSessionLeaseEntity } from './entities/probes';
import { mxHostLimitsKey, mxRcptScheduleKey, mxSessionLeaseKey, mxSessionLeasePrefix } from './keys';
import { tableKeys, ttlAttribute } from './table';

export interface PolitenessLimits {
  /** N: sessions open at once per MX host (SMTP_MAX_SESSIONS_PER_HOST). */
  maxSessionsPerHost: number;
  /** M: RCPT commands per second per MX host (SMTP_RCPT_PER_SECOND_PER_HOST). */
  rcptPerSecondPerHost: number;
  /** A lease not released (crashed invocation) frees itself after this long. */
  leaseMs: number;
}

export interface SessionLease {
  host: string;
  slot: number;
  owner: string;
}

/** How far ahead of now a run of RCPT slots may end. */
export const bookingHorizonMs = 5_000;

/** A run of booked RCPT slots at a host: the i-th (0-based) may be sent from `startMs + i * intervalMs`. */
export interface RcptSlots {
  startMs: number;
  count: number;
  intervalMs: number;
}

/** What a host showed it takes (smtp-session.ts LearnedFromHost). */
export interface LearnedLimits {
  rcptPerSession?: number;
  /** It refused a connection as one too many: one session fewer at once. */
  fewerSessions?: boolean;
}

/** A host's limits now: the configured ones, lowered by what it taught. */
export interface HostLimits {
  sessions: number;
  /** RCPT per session the host takes (undefined: the configured SMTP_RECIPIENTS_PER_SESSION). */
  rcptPerSession: number | undefined;
}

/** How long a host's learnt limits are kept: a few hours, then the configured limits are tried again. */
export const learnedLimitsMs = 6 * 3_600_000;
/** A process reads a host's learnt limits again after this long. */
const limitsCacheMs = 10_000;

/** The limits after learning `l` from a host whose limits were `now` (configured sessions: `max`). */
export function lowered(now: HostLimits, l: LearnedLimits): HostLimits {
  return {
    sessions: l.fewerSessions ? Math.max(1, now.sessions - 1) : now.sessions,
    rcptPerSession:
      l.rcptPerSession === undefined
        ? now.rcptPerSession
        : Math.max(1, Math.min(now.rcptPerSession ?? Number.POSITIVE_INFINITY, l.rcptPerSession)),
  };
}

export interface Politeness {
  /** The host's limits now (learnt ones within the configured ones). */
  hostLimits(host: string): Promise<HostLimits>;
  /** Keeps what a host taught for `learnedLimitsMs`; nothing learnt: no write. */
  learn(host: string, learned: LearnedLimits): Promise<void>;
  /** A session slot at the host, or null when all N (as learnt) are held. */
  acquireSession(host: string): Promise<SessionLease | null>;
  releaseSession(lease: SessionLease): Promise<void>;
  /**
   * Books up to `wanted` RCPT slots at the host (at most what fits before the horizon), or null when its
   * schedule is booked up to the horizon: ask again a little later.
   */
  bookRcpt(host: string, wanted: number): Promise<RcptSlots | null>;
}

export class DynamoPoliteness implements Politeness {
  /** The end of each host's schedule as this booker last saw it. */
  private readonly knownNext = new Map<string, number>();
  /** Each host's limits as last read, until when (ms). */
  private readonly knownLimits = new Map<string, { limits: HostLimits; until: number }>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly limits: PolitenessLimits,
    private readonly clock: Clock = systemClock,
  ) {}

  private now(): number {
    return this.clock().getTime();
  }

  private async readLimits(host: string): Promise<HostLimits> {
    const configured = { sessions: this.limits.maxSessionsPerHost, rcptPerSession: undefined };
    const { Item } = await send(new GetCommand({ TableName: this.table, Key: mxHostLimitsKey(host) }), {
      doc: this.doc,
    });
    if (!Item) return configured;
    const item = mxHostLimitsEntity.parse(Item);
    // past its TTL but not yet deleted by DynamoDB: forgotten
    if (item.ttl * 1000 <= this.now()) return configured;
    return {
      sessions: Math.max(1, Math.min(configured.sessions, item.sessions ?? configured.sessions)),
      rcptPerSession: item.rcptPerSession,
    };
  }

  async hostLimits(host: string): Promise<HostLimits> {
    const known = this.knownLimits.get(host);
    if (known && known.until > this.now()) return known.limits;
    const limits = await this.readLimits(host);
    this.knownLimits.set(host, { limits, until: this.now() + limitsCacheMs });
    return limits;
  }

  async learn(host: string, learned: LearnedLimits): Promise<void> {
    if (!learned.fewerSessions && learned.rcptPerSession === undefined) return;
    // read afresh: another invocation may have learnt the same meanwhile (both then write one value)
    const limits = lowered(await this.readLimits(host), learned);
    const now = this.now();
    await send(
      new PutCommand({
        TableName: this.table,
        Item: mxHostLimitsEntity.item({
          ...mxHostLimitsKey(host),
          sessions: limits.sessions,
          ...(limits.rcptPerSession === undefined ? {} : { rcptPerSession: limits.rcptPerSession }),
          [ttlAttribute]: Math.ceil((now + learnedLimitsMs) / 1000),
        }),
      }),
      { doc: this.doc },
    );
    this.knownLimits.set(host, { limits, until: now + limitsCacheMs });
  }

  async acquireSession(host: string): Promise<SessionLease | null> {
    const owner = randomUUID();
    // start at a random slot so concurrent claimers rarely collide on the same item
    const n = (await this.hostLimits(host)).sessions;
    const first = Math.floor(Math.random() * n);
    for (let i = 0; i < n; i++) {
      const slot = (first + i) % n;
      const now = this.now();
      try {
        await send(
          new PutCommand({
            TableName: this.table,
            Item: mxSessionLeaseEntity.item({
              ...mxSessionLeaseKey(host, slot),
              owner,
              holdUntil: now + this.limits.leaseMs,
              [ttlAttribute]: Math.ceil((now + this.limits.leaseMs) / 1000) + 3600,
            }),
            ConditionExpression: 'attribute_not_exists(pk) OR holdUntil < :now',
            ExpressionAttributeValues: { ':now': now },
          }),
          { doc: this.doc },
        );
        return { host, slot, owner };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return null;
  }

  async releaseSession(lease: SessionLease): Promise<void> {
    try {
      await send(
        new DeleteCommand({
          TableName: this.table,
          Key: mxSessionLeaseKey(lease.host, lease.slot),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': lease.owner },
        }),
        { doc: this.doc },
      );
    } catch (error) {
      // expired and taken over by another invocation: that one releases it
      if (!isConditionFailure(error)) throw error;
    }
  }

  async bookRcpt(host: string, wanted: number): Promise<RcptSlots | null> {
    const intervalMs = 1000 / this.limits.rcptPerSecondPerHost;
    let count = Math.max(1, Math.min(wanted, Math.floor(bookingHorizonMs / intervalMs)));
    const now = this.now();
    // a run starts no sooner than a booking takes to come back, so its first slots are still ahead
    const earliest = now + bookingLead.ms();
    const update = (expression: string, condition: string, values: Record<string, number>) =>
      send(
        new UpdateCommand({
          TableName: this.table,
          Key: mxRcptScheduleKey(host),
          UpdateExpression: `${expression}, #ttl = :ttl`,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#next': 'next', '#ttl': ttlAttribute },
          ExpressionAttributeValues: { ...values, ':ttl': Math.ceil(now / 1000) + 3600 },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        { doc: this.doc },
      );
    /** An update's new `next`, or, when its condition failed, the schedule's `next` then (absent: idle). */
    const attempt = async (...args: Parameters<typeof update>) => {
      try {
        const { Attributes } = await update(...args);
        return { booked: true, next: mxRcptScheduleEntity.parsePart(Attributes ?? {}, ['next']).next };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // the old item comes back marshalled: the document client does not translate errors
        const old = (error as { Item?: { next?: { N?: string } } }).Item?.next?.N;
        return { booked: false, next: old === undefined ? undefined : Number(old) };
      }
    };
    // what this booker last learnt of the schedule picks the try more likely to hold
    let next = this.knownNext.get(host);
    try {
      // another booker may change the schedule between the tries: a few rounds settle it
      for (let round = 0; round < 4; round++) {
        if (next === undefined || next <= earliest) {
          // idle, or free from `earliest` on: this run starts there
          const spanMs = count * intervalMs;
          const out = await attempt('SET #next = :end', 'attribute_not_exists(#next) OR #next <= :earliest', {
            ':end': earliest + spanMs,
            ':earliest': earliest,
          });
          next = out.next;
          if (out.booked) return { startMs: earliest, count, intervalMs };
          continue;
        }
        // booked past `earliest`: this run follows its last one, shortened to end within the horizon
        const fits = Math.floor((now + bookingHorizonMs - next) / intervalMs);
        if (fits < 1) return null;
        count = Math.min(count, fits);
        const spanMs = count * intervalMs;
        const out = await attempt('SET #next = #next + :span', '#next > :earliest AND #next <= :latest', {
          ':span': spanMs,
          ':earliest': earliest,
          ':latest': now + bookingHorizonMs - spanMs,
        });
        next = out.next;
        if (out.booked) return { startMs: out.next! - spanMs, count, intervalMs };
      }
      return null;
    } finally {
      if (next === undefined) this.knownNext.delete(host);
      else this.knownNext.set(host, next);
      bookingLead.observe(this.now() - now);
    }
  }
}

/**
 * How long a booking takes to come back, smoothed over the process's recent bookings: twice that is
 * the lead a run is booked with (at most 2 s). On DynamoDB a few milliseconds; on a busy DynamoDB
 * Local up to a second or more, which would otherwise spend a short run's slots before it is known.
 */
const bookingLead = (() => {
  let smoothedMs = 0;
  return {
    ms: () => Math.min(2000, 2 * smoothedMs),
    observe(ms: number) {
      smoothedMs = 0.8 * smoothedMs + 0.2 * ms;
    },
  };
})();

/**
 * Deletes every MX session lease (the local runtime at start: nothing of an earlier process holds a
 * session any more, and its leases would keep a host's slots taken for up to a lease's lifetime).
 * Reads the whole table; returns how many it voided.
 */
export async function voidAllSessionLeases(): Promise<number> {
  let voided = 0;
  const pages = scanPages({
    FilterExpression: 'begins_with(#pk, :pk) AND begins_with(#sk, :sk)',
    ProjectionExpression: '#pk, #sk',
    ExpressionAttributeNames: { '#pk': tableKeys.partition, '#sk': tableKeys.sort },
    ExpressionAttributeValues: { ':pk': mxSessionLeasePrefix.pk, ':sk': mxSessionLeasePrefix.sk },
  });
  for await (const page of pages)
    for (const key of page) {
      await send(new DeleteCommand({ TableName: tableName(), Key: key }));
      voided += 1;
    }
  return voided;
}

/** The politeness state in the service's table, on the process's client. */
export function tablePoliteness(limits: PolitenessLimits): DynamoPoliteness {
  return new DynamoPoliteness(dynamoDb(), tableName(), limits);
}
