// Storage of the packed list views (functions/domain/workspace/views.ts says what they are): a head item
// per list (version, chunk count, row counts per facet) and chunk items holding rows as JSON arrays.
// Rows arrive here already encoded as arrays of values; this module only stores and reads them.
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { batchWriteAll, queryAll, send, wroteIf } from './dynamodb';
import { MalformedItemError, type StoredItem } from './entities/declare';
import { listViewChunkEntity, listViewHeadEntity } from './entities/workspace';
import { listViewChunkKey, listViewChunkPrefix, listViewHeadKey } from './keys';
import { batchGet, getItem, type WorkspaceWrite } from './workspace';

/** Encoded rows of one chunk. */
export interface PackedChunk {
  index: number;
  rows: unknown[][];
}

export interface ViewHead {
  version: number;
  chunks: number;
  /** For each facet, its row count in every chunk (absent on heads written before counts existed). */
  counts?: Record<string, number[]>;
}

/** What a new head says besides its version. */
export interface HeadFields {
  chunks: number;
  rows: number;
  counts: Record<string, number[]>;
}

function chunkItem(companyId: string, kind: string, chunk: PackedChunk, version: number) {
  return listViewChunkEntity.item({
    ...listViewChunkKey(companyId, kind, chunk.index),
    type: 'listViewChunk',
    version,
    count: chunk.rows.length,
    rows: JSON.stringify(chunk.rows),
  });
}

/** A chunk item's sort key, row count and rows (a JSON array of arrays, checked as far as that). */
function parseChunk(item: StoredItem): { sk: string; count: number; rows: unknown[][] } {
  const { sk, count, rows } = listViewChunkEntity.parse(item);
  const decoded: unknown = JSON.parse(rows);
  if (!Array.isArray(decoded) || !decoded.every((row) => Array.isArray(row)))
    throw new MalformedItemError(listViewChunkEntity.name, item, 'rows is not a JSON array of arrays');
  return { sk, count, rows: decoded };
}

/**
 * The head and the chunks it counts, with one strongly consistent Query (they share a key prefix).
 * Chunks past the head's count are leftovers of a larger earlier build and are left out.
 */
export async function readViewItems(
  companyId: string,
  kind: string,
): Promise<{ head: ViewHead | undefined; chunks: PackedChunk[] }> {
  const headKey = listViewHeadKey(companyId, kind);
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': headKey.pk, ':sk': headKey.sk },
    ConsistentRead: true,
  });
  const headItem = items.find((item) => item.sk === headKey.sk);
  if (!headItem) return { head: undefined, chunks: [] };
  const { version, chunks: chunkCount } = listViewHeadEntity.parse(headItem);
  const head: ViewHead = { version, chunks: chunkCount };
  const prefix = listViewChunkPrefix(kind);
  const chunks: PackedChunk[] = [];
  for (const item of items) {
    // the query's prefix also matches the head, and the items of a kind whose name extends this one
    if (typeof item.sk !== 'string' || !item.sk.startsWith(prefix)) continue;
    const index = Number(item.sk.slice(prefix.length));
    if (!(index < head.chunks)) continue;
    chunks.push({ index, rows: parseChunk(item).rows });
  }
  chunks.sort((a, b) => a.index - b.index);
  return { head, chunks };
}

/** The head alone, strongly consistent. */
export async function readViewHead(companyId: string, kind: string): Promise<ViewHead | undefined> {
  const stored = await getItem(listViewHeadEntity, listViewHeadKey(companyId, kind), true);
  if (!stored) return undefined;
  const { version, chunks, counts } = stored;
  return { version, chunks, ...(counts ? { counts } : {}) };
}

/**
 * Chunks by index, strongly consistent, in the order asked; a missing chunk reads as count -1 (never
 * equal to a head's count, so the caller sees the mismatch).
 */
export async function readViewChunks(
  companyId: string,
  kind: string,
  indexes: number[],
): Promise<{ count: number; rows: unknown[][] }[]> {
  const chunks = await batchGet(
    { parse: parseChunk },
    indexes.map((i) => listViewChunkKey(companyId, kind, i)),
    { concurrency: 1, consistent: true },
  );
  const bySk = new Map(chunks.map((chunk) => [chunk.sk, chunk]));
  return indexes.map((i) => {
    const chunk = bySk.get(listViewChunkKey(companyId, kind, i).sk);
    return chunk ? { count: chunk.count, rows: chunk.rows } : { count: -1, rows: [] };
  });
}

/**
 * Writes a whole view outside a transaction: the chunks first (ten per BatchWrite keeps each request
 * far below its 16 MB cap), the head last. Callers hold the workspace lock.
 */
export async function putWholeView(
  companyId: string,
  kind: string,
  version: number,
  chunks: PackedChunk[],
  head: HeadFields,
): Promise<void> {
  await batchWriteAll(
    chunks.map((chunk) => ({ PutRequest: { Item: chunkItem(companyId, kind, chunk, version) } })),
    { groupSize: 10, concurrency: 1 },
  );
  await send(
    new PutCommand({
      TableName: tableName(),
      Item: listViewHeadEntity.item({
        ...listViewHeadKey(companyId, kind),
        type: 'listViewHead',
        version,
        ...head,
      }),
    }),
  );
}

/**
 * Transaction writes that store a changed view: the head moves to version+1 only if nobody else moved
 * it since the read (`current`: the version read, or undefined when there was no view), so two writers
 * can never both rewrite the same rows; then the changed chunks.
 */
export function viewWrites(
  companyId: string,
  kind: string,
  current: number | undefined,
  head: HeadFields,
  changed: PackedChunk[],
): WorkspaceWrite[] {
  const next = (current ?? 0) + 1;
  const headWrite: WorkspaceWrite = {
    Update: {
      TableName: tableName(),
      Key: listViewHeadKey(companyId, kind),
      UpdateExpression:
        'SET #version = :next, #chunks = :chunks, #rows = :rows, #type = :type, #counts = :counts',
      ConditionExpression: current !== undefined ? '#version = :current' : 'attribute_not_exists(#version)',
      ExpressionAttributeNames: {
        '#version': 'version',
        '#chunks': 'chunks',
        '#rows': 'rows',
        '#counts': 'counts',
        '#type': 'type',
      },
      ExpressionAttributeValues: {
        ':next': next,
        ':chunks': head.chunks,
        ':rows': head.rows,
        ':type': 'listViewHead',
        ':counts': head.counts,
        ...(current !== undefined ? { ':current': current } : {}),
      },
    },
  };
  const puts: WorkspaceWrite[] = [...changed]
    .sort((a, b) => a.index - b.index)
    .map((chunk) => ({ Put: { TableName: tableName(), Item: chunkItem(companyId, kind, chunk, next) } }));
  return [headWrite, ...puts];
}

/** Writes a view's first build (version 1) as one transaction; false when someone else built it first. */
export function createView(
  companyId: string,
  kind: string,
  head: HeadFields,
  chunks: PackedChunk[],
): Promise<boolean> {
  const writes = viewWrites(companyId, kind, undefined, head, chunks);
  return wroteIf(send(new TransactWriteCommand({ TransactItems: writes })));
}
