// Validation requests in the single table (validationRequestKey, TTL 30 days): pending -> completed or
// failed. Completing a request and counting it in the company's monthly usage is one transaction
// whose condition is the pending state, so a redelivered message can never count an address twice.
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FormattedItem } from 'dynamodb-toolbox';
import { tableName } from '../clients/dynamodb';
import { send, wroteIf } from './dynamodb';
import { MalformedItemError } from './entities/declare';
import { validationRequestEntity } from './entities/usage';
import { validationRequestKey } from './keys';
import { epochSeconds } from './table';
import { countedDelta, monthUpdate } from './usage';

const REQUEST_TTL_SECONDS = 30 * 86400;

export type RequestStatus = 'pending' | 'completed' | 'failed';

/** A request; `Outcome` is the engine's answer (functions/domain/validation's ValidationResult). */
export interface ValidationRequest<Outcome = unknown> {
  companyId: string;
  requestId: string;
  status: RequestStatus;
  /** The address as submitted; kept only while pending (the queue consumer reads it). */
  input?: string;
  /** The caller's metadata, echoed; undefined when none was sent. */
  metadata?: Record<string, unknown>;
  createdAt: string;
  validatedAt?: string;
  /** The engine's answer once completed. */
  outcome?: Outcome;
  /** Why a failed request failed (the 500 body of polling). */
  error?: string;
}

/** A request as stored (validationRequestEntity): metadata as its JSON text. */
type StoredRequest = FormattedItem<typeof validationRequestEntity.entity>;

/** One completed single validation counted in the usage month (YYYY-MM), as a transaction item. */
function usageUpdate(companyId: string, month: string) {
  return monthUpdate(companyId, month, countedDelta('single', 1));
}

const ttlOf = (createdAt: string) => epochSeconds(new Date(createdAt)) + REQUEST_TTL_SECONDS;

/**
 * The outcome as JSON text: one string attribute costs DynamoDB less per write than the same result
 * as nested maps (about 25 attributes to convert and size), and nothing queries inside it.
 */
const outcomeJsonOf = (outcome: unknown) => JSON.stringify(outcome);

function toItem<Outcome>(request: ValidationRequest<Outcome>) {
  const { metadata, outcome, ...rest } = request;
  return {
    ...validationRequestKey(request.companyId, request.requestId),
    type: 'validation_request',
    ...rest,
    ...(metadata === undefined ? {} : { metadataJson: JSON.stringify(metadata) }),
    ...(outcome === undefined ? {} : { outcomeJson: outcomeJsonOf(outcome) }),
    ttl: ttlOf(request.createdAt),
  };
}

/**
 * Checks a stored outcome and gives it its type (the entity leaves its shape to the engine, so the
 * reader that knows the shape parses it); throws on a value of another shape.
 */
export type OutcomeParser<Outcome> = (stored: unknown) => Outcome;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function malformed(item: StoredRequest, detail: string): MalformedItemError {
  return new MalformedItemError(validationRequestEntity.name, item, detail);
}

function metadataOf(item: StoredRequest, json: string): Record<string, unknown> {
  const metadata: unknown = JSON.parse(json);
  if (!isRecord(metadata)) throw malformed(item, 'metadataJson is not a JSON object');
  return metadata;
}

/** The stored outcome: JSON text, or nested maps in items written before the text. */
function storedOutcome(item: StoredRequest): unknown {
  return item.outcomeJson === undefined ? item.outcome : JSON.parse(item.outcomeJson);
}

function outcomeOf<Outcome>(item: StoredRequest, parseOutcome: OutcomeParser<Outcome>): Outcome {
  try {
    return parseOutcome(storedOutcome(item));
  } catch (error) {
    throw malformed(item, `outcome: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function fromItem<Outcome>(
  item: StoredRequest,
  parseOutcome?: OutcomeParser<Outcome>,
): ValidationRequest<Outcome> {
  const { metadataJson, ...rest } = item;
  return {
    companyId: rest.companyId,
    requestId: rest.requestId,
    status: rest.status,
    createdAt: rest.createdAt,
    ...(rest.input === undefined ? {} : { input: rest.input }),
    ...(metadataJson === undefined ? {} : { metadata: metadataOf(item, metadataJson) }),
    ...(rest.validatedAt === undefined ? {} : { validatedAt: rest.validatedAt }),
    ...((rest.outcome === undefined && rest.outcomeJson === undefined) || parseOutcome === undefined
      ? {}
      : { outcome: outcomeOf(item, parseOutcome) }),
    ...(rest.error === undefined ? {} : { error: rest.error }),
  };
}

/** The company's request, or undefined (unknown id, another company's, or expired). Strongly consistent. */
export async function readRequest<Outcome = never>(
  companyId: string,
  requestId: string,
  parseOutcome?: OutcomeParser<Outcome>,
): Promise<ValidationRequest<Outcome> | undefined> {
  const { Item } = await send(
    new GetCommand({
      TableName: tableName(),
      Key: validationRequestKey(companyId, requestId),
      // A poll right after the 202 must find the request it was told about.
      ConsistentRead: true,
    }),
  );
  return Item ? fromItem(validationRequestEntity.parse(Item), parseOutcome) : undefined;
}

/** Stores a new pending request (its id is fresh, so an existing item means a bug, not a retry). */
export async function createPendingRequest(
  request: ValidationRequest<never> & { status: 'pending'; input: string },
) {
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: toItem(request),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The usage item of a transaction: none for an address usage never counts (`usageMonth` undefined). */
function usageItems(companyId: string, usageMonth: string | undefined) {
  return usageMonth === undefined ? [] : [{ Update: usageUpdate(companyId, usageMonth) }];
}

/**
 * Where a completed single validation counts: its month and, when the quota is enforced by this write,
 * the most the month's `committed` may hold before it.
 */
export interface CountedIn {
  month: string;
  maxCommittedBefore?: number;
}

/** The usage item of the completing transaction, conditioned on the quota when `countedIn` says so. */
function countedUsageItem(companyId: string, countedIn: CountedIn) {
  const update = usageUpdate(companyId, countedIn.month);
  if (countedIn.maxCommittedBefore === undefined) return { Update: update };
  return {
    Update: {
      ...update,
      ConditionExpression: 'attribute_not_exists(#committed) OR #committed <= :max',
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#committed': 'committed' },
      ExpressionAttributeValues: {
        ...update.ExpressionAttributeValues,
        ':max': countedIn.maxCommittedBefore,
      },
    },
  };
}

/**
 * Stores a request that completed within the sync budget straight as completed, with its usage, in one
 * transaction: nobody can poll it before the response, so a pending write first would only cost time.
 * `countedIn` undefined: not counted (test addresses). Returns false, with nothing written, when the
 * month's `committed` was beyond `countedIn.maxCommittedBefore` (no quota or credits left for it).
 */
export async function storeCompletedRequest<Outcome>(
  request: ValidationRequest<Outcome> & { status: 'completed'; validatedAt: string },
  countedIn: CountedIn | undefined,
): Promise<boolean> {
  return wroteIf(
    send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: toItem(request),
              // the id is fresh: this never fails
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...(countedIn ? [countedUsageItem(request.companyId, countedIn)] : []),
        ],
      }),
    ),
  );
}

/**
 * Moves a pending request to completed and counts it, in one transaction. Returns false when the
 * request was no longer pending (a redelivery after success, or failed meanwhile): nothing written.
 * `usageMonth` undefined: not counted (test addresses).
 */
export async function completePendingRequest(
  companyId: string,
  requestId: string,
  outcome: object,
  validatedAt: string,
  usageMonth: string | undefined,
): Promise<boolean> {
  return wroteIf(
    send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: validationRequestKey(companyId, requestId),
              UpdateExpression:
                'SET #status = :completed, outcomeJson = :outcome, validatedAt = :at REMOVE #input',
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status', '#input': 'input' },
              ExpressionAttributeValues: {
                ':completed': 'completed',
                ':pending': 'pending',
                ':outcome': outcomeJsonOf(outcome),
                ':at': validatedAt,
              },
            },
          },
          ...usageItems(companyId, usageMonth),
        ],
      }),
    ),
  );
}

/** Marks a pending request failed; false when it was not pending (completed meanwhile, or gone). */
export async function failPendingRequest(
  companyId: string,
  requestId: string,
  reason: string,
  failedAt: string,
): Promise<boolean> {
  return wroteIf(
    send(
      new UpdateCommand({
        TableName: tableName(),
        Key: validationRequestKey(companyId, requestId),
        UpdateExpression: 'SET #status = :failed, #error = :error, failedAt = :at REMOVE #input',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#input': 'input' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':pending': 'pending',
          ':error': reason,
          ':at': failedAt,
        },
      }),
    ),
  );
}
