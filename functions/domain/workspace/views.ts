// Packed list views: every workspace list (mailboxes, domains, users, Safety Net mailboxes and
// sequences) is also kept as a few large items holding its rows, sorted, as JSON arrays. A list request
// reads that view (one Query of a handful of items) instead of thousands of small items: DynamoDB
// charges by bytes either way, but item count dominates latency, and the views are a fraction of the
// items' size. The items stay the source of truth; a view is rebuilt from them by an import, and an API
// write updates item and view in one transaction guarded by the view's version (optimistic locking).
// This module holds the rules (order, chunking, facets, paging); functions/store/list-views.ts stores.
import {
  createView,
  putWholeView,
  readViewChunks,
  readViewHead,
  readViewItems,
  viewWrites,
  type HeadFields,
  type PackedChunk,
} from '../../store/list-views';
import type { WorkspaceWrite } from '../../store/workspace';

/** What the views need of storage: functions/store/list-views.ts, or an in-memory one in tests. */
export interface ViewStore {
  readViewItems: typeof readViewItems;
  readViewHead: typeof readViewHead;
  readViewChunks: typeof readViewChunks;
  putWholeView: typeof putWholeView;
  createView: typeof createView;
}

const tableViews: ViewStore = { readViewItems, readViewHead, readViewChunks, putWholeView, createView };

/** How one list packs its rows. */
export interface ViewSpec<Row> {
  kind: string;
  encode(row: Row): unknown[];
  decode(values: unknown[]): Row;
  compare(a: Row, b: Row): number;
  /** What identifies a row within the list (an email, an id). */
  identity(row: Row): string;
  /**
   * The filters a row matches, as canonical `name=value` strings joined by `&` in name order (every
   * combination of the list's filters). The head counts rows per facet and chunk, so a filtered page
   * finds its chunks without reading the others. allFacet (no filter) is implicit.
   */
  facets?(row: Row): string[];
}

export interface ViewChunk<Row> {
  index: number;
  rows: Row[];
}

export interface LoadedView<Row> {
  exists: boolean;
  version: number;
  chunks: ViewChunk<Row>[];
}

/**
 * Chunk size: small enough that a page of 50 reads one or two chunks, large enough that a whole list
 * stays a few dozen items. Builds fill chunks to 3/4 so an insert rarely has to re-chunk.
 */
export const maxChunkBytes = 64_000;
const buildFillBytes = 48_000;

export function allRows<Row>(view: LoadedView<Row>): Row[] {
  if (view.chunks.length === 1) return view.chunks[0]!.rows;
  return view.chunks.flatMap((c) => c.rows);
}

/** Reads a view with one strongly consistent Query (head and chunks share a key prefix). */
async function readView<Row>(
  companyId: string,
  spec: ViewSpec<Row>,
  store: ViewStore,
): Promise<LoadedView<Row>> {
  const { head, chunks } = await store.readViewItems(companyId, spec.kind);
  if (!head) return { exists: false, version: 0, chunks: [] };
  return {
    exists: true,
    version: head.version,
    chunks: chunks.map((chunk) => ({
      index: chunk.index,
      rows: chunk.rows.map((values) => spec.decode(values)),
    })),
  };
}

/** Splits sorted rows into chunks of at most maxChunkBytes. */
export function chunkRows<Row>(
  spec: ViewSpec<Row>,
  rows: Row[],
  limitBytes = buildFillBytes,
): ViewChunk<Row>[] {
  const chunks: ViewChunk<Row>[] = [];
  let current: Row[] = [];
  let bytes = 2;
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(spec.encode(row))) + 1;
    if (current.length > 0 && bytes + size > limitBytes) {
      chunks.push({ index: chunks.length, rows: current });
      current = [];
      bytes = 2;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0 || chunks.length === 0) chunks.push({ index: chunks.length, rows: current });
  return chunks;
}

/** The facet of every row (DynamoDB map keys cannot be empty, so not ''). */
export const allFacet = '*';

/** Rows per facet of one chunk (allFacet counts every row). */
function chunkCounts<Row>(spec: ViewSpec<Row>, rows: Row[]): Record<string, number> {
  const counts: Record<string, number> = { [allFacet]: rows.length };
  if (spec.facets)
    for (const row of rows) for (const facet of spec.facets(row)) counts[facet] = (counts[facet] ?? 0) + 1;
  return counts;
}

/** The head's counts: for each facet, its row count in every chunk, in chunk order. */
function headCounts<Row>(spec: ViewSpec<Row>, chunks: ViewChunk<Row>[]): Record<string, number[]> {
  const perChunk = chunks.map((chunk) => chunkCounts(spec, chunk.rows));
  const facets = new Set(perChunk.flatMap((c) => Object.keys(c)));
  return Object.fromEntries([...facets].map((facet) => [facet, perChunk.map((c) => c[facet] ?? 0)]));
}

function packed<Row>(spec: ViewSpec<Row>, chunk: ViewChunk<Row>): PackedChunk {
  return { index: chunk.index, rows: chunk.rows.map((row) => spec.encode(row)) };
}

function headFields<Row>(spec: ViewSpec<Row>, chunks: ViewChunk<Row>[]): HeadFields {
  return {
    chunks: chunks.length,
    rows: chunks.reduce((n, c) => n + c.rows.length, 0),
    counts: headCounts(spec, chunks),
  };
}

/**
 * Replaces a whole view (import, first use). Not one transaction: callers hold the workspace lock,
 * which keeps API writes out until the new head is in place.
 */
export async function writeWholeView<Row>(
  companyId: string,
  spec: ViewSpec<Row>,
  rows: Row[],
  store: ViewStore = tableViews,
): Promise<void> {
  const sorted = [...rows].sort(spec.compare);
  const current = await readView(companyId, spec, store);
  const chunks = chunkRows(spec, sorted);
  await store.putWholeView(
    companyId,
    spec.kind,
    current.version + 1,
    chunks.map((chunk) => packed(spec, chunk)),
    headFields(spec, chunks),
  );
}

/** The view after the change, and the chunk indexes a transaction must rewrite. */
export interface ViewChange<Row> {
  view: LoadedView<Row>;
  changed: Set<number>;
}

/** Replaces rows in place (same identity, same sort position: e.g. a new `activated`). */
export function replaceRows<Row>(
  spec: ViewSpec<Row>,
  view: LoadedView<Row>,
  updated: Row[],
): ViewChange<Row> {
  const byId = new Map(updated.map((row) => [spec.identity(row), row]));
  const changed = new Set<number>();
  const chunks = view.chunks.map((chunk) => {
    let touched = false;
    const rows = chunk.rows.map((row) => {
      const next = byId.get(spec.identity(row));
      if (next === undefined) return row;
      touched = true;
      return next;
    });
    if (touched) changed.add(chunk.index);
    return { index: chunk.index, rows };
  });
  return { view: { ...view, chunks }, changed };
}

/** Inserts or replaces one row keeping the order; re-chunks everything only when its chunk overflows. */
export function upsertRow<Row>(spec: ViewSpec<Row>, view: LoadedView<Row>, row: Row): ViewChange<Row> {
  const identity = spec.identity(row);
  const chunks = view.chunks.map((chunk) => ({
    index: chunk.index,
    rows: chunk.rows.filter((r) => spec.identity(r) !== identity),
  }));
  const changed = new Set(
    view.chunks.filter((c, i) => c.rows.length !== chunks[i]!.rows.length).map((c) => c.index),
  );
  if (chunks.length === 0) chunks.push({ index: 0, rows: [] });
  // The row goes into the last chunk whose first row sorts before it (or the first chunk).
  let target = chunks[0]!;
  for (const chunk of chunks)
    if (chunk.rows[0] !== undefined && spec.compare(chunk.rows[0], row) <= 0) target = chunk;
  let position = target.rows.findIndex((r) => spec.compare(row, r) < 0);
  if (position < 0) position = target.rows.length;
  target.rows.splice(position, 0, row);
  changed.add(target.index);
  if (Buffer.byteLength(JSON.stringify(target.rows.map((r) => spec.encode(r)))) <= maxChunkBytes) {
    return { view: { ...view, chunks }, changed };
  }
  const rechunked = chunkRows(
    spec,
    chunks.flatMap((c) => c.rows),
  );
  return { view: { ...view, chunks: rechunked }, changed: new Set(rechunked.map((c) => c.index)) };
}

/** Removes the row of this identity (a disconnected mailbox, a domain left without mailboxes). */
export function removeRow<Row>(
  spec: ViewSpec<Row>,
  view: LoadedView<Row>,
  identity: string,
): ViewChange<Row> {
  const changed = new Set<number>();
  const chunks = view.chunks.map((chunk) => {
    const rows = chunk.rows.filter((r) => spec.identity(r) !== identity);
    if (rows.length !== chunk.rows.length) changed.add(chunk.index);
    return { index: chunk.index, rows };
  });
  return { view: { ...view, chunks }, changed };
}

/**
 * Transaction items that store a changed view: the head moves to version+1 only if nobody else moved
 * it since the read, so two writers can never both rewrite the same rows.
 */
export function viewTransactItems<Row>(
  companyId: string,
  spec: ViewSpec<Row>,
  change: ViewChange<Row>,
): WorkspaceWrite[] {
  const { view } = change;
  return viewWrites(
    companyId,
    spec.kind,
    view.exists ? view.version : undefined,
    headFields(spec, view.chunks),
    [...change.changed].map((index) => packed(spec, view.chunks[index]!)),
  );
}

/**
 * Reads a view, building it from the items first when it has never been written (users created by
 * the accounts module before any workspace write, for example). The first build is one transaction
 * when it fits, so it cannot interleave with an API write.
 */
export async function loadView<Row>(
  companyId: string,
  spec: ViewSpec<Row>,
  buildRows: () => Promise<Row[]>,
  store: ViewStore = tableViews,
): Promise<LoadedView<Row>> {
  const view = await readView(companyId, spec, store);
  if (view.exists) return view;
  const rows = (await buildRows()).sort(spec.compare);
  const chunks = chunkRows(spec, rows);
  if (chunks.length <= 40) {
    const built = await store.createView(
      companyId,
      spec.kind,
      headFields(spec, chunks),
      chunks.map((chunk) => packed(spec, chunk)),
    );
    // Someone else built it first: theirs is as good.
    if (!built) return readView(companyId, spec, store);
  } else {
    await writeWholeView(companyId, spec, rows, store);
  }
  return readView(companyId, spec, store);
}

export interface ViewPage<Row> {
  total: number;
  rows: Row[];
}

/**
 * One page of a list, filtered by a facet: reads the head, then only the chunks that hold the page
 * (one BatchGet). Falls back to reading the whole view when the head has no counts for the facet.
 * A chunk rewritten between the two reads shows as a count mismatch, and the read starts over.
 */
export async function readPage<Row>(
  companyId: string,
  spec: ViewSpec<Row>,
  filter: { facet: string; matches: (row: Row) => boolean },
  offset: number,
  limit: number,
  buildRows: () => Promise<Row[]>,
  store: ViewStore = tableViews,
): Promise<ViewPage<Row>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const head = await store.readViewHead(companyId, spec.kind);
    const counts =
      head?.counts?.[filter.facet] ?? (head?.counts ? new Array<number>(head.chunks).fill(0) : undefined);
    if (!head || !counts) {
      const rows = allRows(await loadView(companyId, spec, buildRows, store)).filter(filter.matches);
      return { total: rows.length, rows: rows.slice(offset, offset + limit) };
    }
    const total = counts.reduce((a, b) => a + b, 0);
    // The chunks whose filtered rows overlap [offset, offset + limit).
    const wanted: number[] = [];
    let before = 0;
    for (let i = 0, seen = 0; i < counts.length; seen += counts[i]!, i++) {
      const end = seen + counts[i]!;
      if (end > offset && seen < offset + limit && counts[i]! > 0) {
        if (wanted.length === 0) before = seen;
        wanted.push(i);
      }
    }
    // Filtered rows of the chunks before the first wanted one: the page starts `skip` rows into it.
    const skip = offset - before;
    if (wanted.length === 0) return { total, rows: [] };
    const items = await store.readViewChunks(companyId, spec.kind, wanted);
    const allCounts = head.counts?.[allFacet];
    if (items.some((item, k) => item.count !== allCounts?.[wanted[k]!])) continue;
    const rows = items.flatMap((item) => item.rows.map((v) => spec.decode(v)));
    const filtered = rows.filter(filter.matches);
    if (filtered.length !== wanted.reduce((n, i) => n + counts[i]!, 0)) continue;
    return { total, rows: filtered.slice(skip, skip + limit) };
  }
  const rows = allRows(await loadView(companyId, spec, buildRows, store)).filter(filter.matches);
  return { total: rows.length, rows: rows.slice(offset, offset + limit) };
}
