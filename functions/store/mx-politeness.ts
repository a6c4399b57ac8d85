// Storage of the politeness state towards each MX host, shared by every concurrent invocation
// (docs/bulk.md, "Politeness"):
// - at most N sessions at once per host: N lease items (MXHOST#<host> / SESSION#<n>), each claimed with a
//   conditional put (free, or its holder's lease expired) and released by its holder;
// - at most M RCPT per second per host: one counter per host and second, incremented with a condition
//   that keeps it at or below M (a token bucket refilled every second).
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
import { mxRcptBucketKey, mxSessionLeaseKey } from './keys';
import { ttlAttribute } from './table';

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

export interface Politeness {
  /** A session slot at the host, or null when all N are held. */
  acquireSession(host: string): Promise<SessionLease | null>;
  releaseSession(lease: SessionLease): Promise<void>;
  /** How many of `wanted` RCPT may be sent to the host in the current second (0..wanted). */
  takeRcpt(host: string, wanted: number): Promise<number>;
}

export class DynamoPoliteness implements Politeness {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly limits: PolitenessLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async acquireSession(host: string): Promise<SessionLease | null> {
    const owner = randomUUID();
    // start at a random slot so concurrent claimers rarely collide on the same item
    const n = this.limits.maxSessionsPerHost;
    const first = Math.floor(Math.random() * n);
    for (let i = 0; i < n; i++) {
      const slot = (first + i) % n;
      const now = this.now();
      try {
        await this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...mxSessionLeaseKey(host, slot),
              owner,
              holdUntil: now + this.limits.leaseMs,
              [ttlAttribute]: Math.ceil((now + this.limits.leaseMs) / 1000) + 3600,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR holdUntil < :now',
            ExpressionAttributeValues: { ':now': now },
          }),
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
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: mxSessionLeaseKey(lease.host, lease.slot),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': lease.owner },
        }),
      );
    } catch (error) {
      // expired and taken over by another invocation: that one releases it
      if (!isConditionFailure(error)) throw error;
    }
  }

  async takeRcpt(host: string, wanted: number): Promise<number> {
    const limit = this.limits.rcptPerSecondPerHost;
    const second = Math.floor(this.now() / 1000);
    const key = mxRcptBucketKey(host, second);
    let ask = Math.min(wanted, limit);
    for (let attempt = 0; attempt < 3 && ask > 0; attempt++) {
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'ADD #count :n SET #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
            ExpressionAttributeNames: { '#count': 'count', '#ttl': ttlAttribute },
            ExpressionAttributeValues: { ':n': ask, ':room': limit - ask, ':ttl': second + 120 },
          }),
        );
        return ask;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const current = await this.doc.send(
        new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
      );
      ask = Math.min(wanted, limit - Number(current.Item?.count ?? 0));
    }
    return 0;
  }
}

/** The politeness state in the service's table, on the process's client. */
export function tablePoliteness(limits: PolitenessLimits): DynamoPoliteness {
  return new DynamoPoliteness(dynamoDb(), tableName(), limits);
}
