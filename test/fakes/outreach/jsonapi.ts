// JSON:API 1.0 as the Outreach fake speaks it: error objects, resource objects, filters, sort, opaque
// cursors, offset caps, include and sparse fieldsets. Sources: reference §1.1, §1.2 and §6.1.1-3.
import { emailKey, randomToken } from '../http';
import { TYPE_BY_NAME, type OutreachStore, type Row, type TypeDef } from './store';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorId: string,
    readonly title: string,
    detail: string,
    readonly pointer?: string,
  ) {
    super(detail);
  }

  body() {
    const error: Record<string, unknown> = { id: this.errorId, title: this.title, detail: this.message };
    if (this.pointer) error.source = { pointer: this.pointer };
    return { errors: [error] };
  }
}

export const badRequest = (detail: string) => new ApiError(400, 'badRequest', 'Bad Request', detail);
export const notFound = (type: string, id: string) =>
  new ApiError(404, 'resourceNotFound', 'Resource Not Found', `Could not find '${type}' with ID '${id}'.`);

/** Bracketed query keys: `filter[mailbox][id]` -> ['filter', 'mailbox', 'id']. */
function keyPath(key: string): string[] {
  const head = /^[^[]+/.exec(key)?.[0] ?? key;
  return [head, ...[...key.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)];
}

type Matcher = (value: unknown) => boolean;

// Emails are stored as given and compared without regard to case (§6.3).
const isEmailAttr = (name: string) => /email/i.test(name) || name === 'value' || name === 'mailboxAddress';

function comparable(v: unknown): number | string {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\d/.test(v)) return Date.parse(v.endsWith('Z') ? v : `${v}Z`);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return String(v);
}

/** One filter value: `a`, `a,b,c`, `a..b`, `neginf..b`, `a..inf`, `__null__`, `__notnull__` (§1.2 [T]). */
function matcher(raw: string, attr: string): Matcher {
  if (raw === '__null__') return (v) => v === null || v === undefined;
  if (raw === '__notnull__') return (v) => v !== null && v !== undefined;
  const range = raw.indexOf('..');
  if (range >= 0) {
    const lo = raw.slice(0, range);
    const hi = raw.slice(range + 2);
    const low = lo === '' || lo === 'neginf' ? null : comparable(lo);
    const high = hi === '' || hi === 'inf' ? null : comparable(hi);
    return (v) => {
      if (v === null || v === undefined) return false;
      const c = comparable(v);
      return (low === null || c >= low) && (high === null || c <= high);
    };
  }
  const options = raw.split(',').map((o) => (isEmailAttr(attr) ? emailKey(o) : o));
  return (v) => {
    if (v === null || v === undefined) return false;
    const s = typeof v === 'string' && isEmailAttr(attr) ? emailKey(v) : String(v);
    return options.includes(s);
  };
}

const anyOf = (m: Matcher) => (v: unknown) => (Array.isArray(v) ? v.some(m) : m(v));

function attributeValue(row: Row, attr: string): unknown {
  return attr === 'id' ? row.id : row.attributes[attr];
}

export interface ListOptions {
  apiUrl: string;
  defaultPageSize: number;
  maxPageSize: number;
  truncateCounts: boolean;
  /** A fault: links.next hands back the cursor it was given, so the same page repeats forever. */
  repeatNextLink: boolean;
}

interface Cursor {
  scope: string;
  last: Array<number | string>;
}

/** Lists, pages and serialises one collection; keeps the cursors it handed out (opaque, §6.1.2). */
export class JsonApi {
  private cursors = new Map<string, Cursor>();

  constructor(
    private readonly store: OutreachStore,
    private readonly options: () => ListOptions,
  ) {}

  private filters(def: TypeDef, params: URLSearchParams): Array<(row: Row) => boolean> {
    const out: Array<(row: Row) => boolean> = [];
    for (const [key, raw] of params) {
      const path = keyPath(key);
      if (path[0] !== 'filter') continue;
      if (path.length === 2) {
        const attr = path[1]!;
        const m = anyOf(matcher(raw, attr));
        out.push((row) => m(attributeValue(row, attr)));
      } else if (path.length === 3) {
        const [, rel, attr] = path as [string, string, string];
        const target = def.toOne[rel];
        if (!target) throw badRequest(`${key} is not a filterable relationship of ${def.type}.`);
        if (attr === 'id') {
          const m = matcher(raw, 'id');
          out.push((row) => m(row.toOne[rel]));
          continue;
        }
        // Relationship filters are id-only except where the OpenAPI says otherwise (§1.2 [T]/[P]).
        const allowed = def.relationFilters?.[rel];
        if (!allowed || (allowed !== '*' && !allowed.includes(attr))) {
          throw badRequest(`${key}: relationship ${rel} can only be filtered by id.`);
        }
        const m = anyOf(matcher(raw, attr));
        out.push((row) => m(this.store.get(target, row.toOne[rel])?.attributes[attr]));
      } else {
        throw badRequest(`${key} is not a supported filter.`);
      }
    }
    return out;
  }

  private sortKeys(def: TypeDef, params: URLSearchParams) {
    const spec = (params.get('sort') ?? '').split(',').filter(Boolean);
    const sample = this.store.table(def.type).values().next().value as Row | undefined;
    const keys = spec.map((s) => ({ attr: s.replace(/^-/, ''), desc: s.startsWith('-') }));
    for (const k of keys) {
      if (k.attr !== 'id' && sample && !(k.attr in sample.attributes))
        throw badRequest(`Cannot sort by ${k.attr}.`);
    }
    keys.push({ attr: 'id', desc: keys.length > 0 && keys[keys.length - 1]!.desc });
    return keys;
  }

  /** `GET /<plural>`: filters, sort, cursor or offset paging, count, include, fields. */
  list(def: TypeDef, params: URLSearchParams): Record<string, unknown> {
    const opts = this.options();
    const tests = this.filters(def, params);
    const keys = this.sortKeys(def, params);
    const tuple = (row: Row) => keys.map((k) => comparable(attributeValue(row, k.attr) ?? ''));
    const compare = (a: Array<number | string>, b: Array<number | string>) => {
      for (let i = 0; i < keys.length; i++) {
        if (a[i]! < b[i]!) return keys[i]!.desc ? 1 : -1;
        if (a[i]! > b[i]!) return keys[i]!.desc ? -1 : 1;
      }
      return 0;
    };
    const rows = [...this.store.table(def.type).values()].filter((r) => tests.every((t) => t(r)));
    const tuples = new Map(rows.map((r) => [r, tuple(r)]));
    rows.sort((a, b) => compare(tuples.get(a)!, tuples.get(b)!));

    const scope = `${def.plural}|${params.get('sort') ?? ''}`;
    const next = new URLSearchParams(params);
    let page: Row[];
    let hasMore: boolean;
    const offsetRaw = params.get('page[offset]');
    const limitRaw = params.get('page[limit]');
    if ((offsetRaw !== null || limitRaw !== null) && params.get('page[size]') === null) {
      // Deprecated offset paging, with its hard caps (§1.2 [T]): offset ≤ 10,000, limit ≤ 1,000.
      const offset = Number(offsetRaw ?? 0);
      const limit = Number(limitRaw ?? opts.defaultPageSize);
      if (!Number.isInteger(offset) || offset < 0 || offset > 10_000) {
        throw badRequest('page[offset] must be an integer between 0 and 10000.');
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw badRequest('page[limit] must be an integer between 1 and 1000.');
      }
      page = rows.slice(offset, offset + limit);
      hasMore = offset + limit < rows.length;
      next.set('page[offset]', String(offset + limit));
      next.set('page[limit]', String(limit));
    } else {
      const sizeRaw = params.get('page[size]');
      const after = params.get('page[after]');
      const size = sizeRaw === null ? opts.defaultPageSize : Number(sizeRaw);
      if (!Number.isInteger(size) || size < 1) throw badRequest('page[size] must be a positive integer.');
      // The largest cursor page is [UNVERIFIED]; public code uses 1000. Larger sizes are cut to the maximum.
      const limit = Math.min(size, opts.maxPageSize);
      let start = 0;
      if (after !== null) {
        const cursor = this.cursors.get(after);
        if (!cursor || cursor.scope !== scope)
          throw badRequest('page[after] is not a cursor this collection issued.');
        start = rows.findIndex((r) => compare(tuples.get(r)!, cursor.last) > 0);
        if (start < 0) start = rows.length;
      }
      page = rows.slice(start, start + limit);
      hasMore = start + limit < rows.length;
      if (hasMore) {
        // Opaque and unparseable: a client can only follow links.next, never build it (§6.1.2).
        // A client must not loop forever when links.next repeats (§6.1.2): `repeatNextLink` makes it so.
        if (after !== null && opts.repeatNextLink) next.set('page[after]', after);
        else {
          const token = randomToken(18);
          this.cursors.set(token, { scope, last: tuple(page[page.length - 1]!) });
          next.set('page[after]', token);
        }
      }
    }
    const first = new URLSearchParams(params);
    first.delete('page[after]');
    first.delete('page[offset]');
    const links: Record<string, string> = { first: this.url(def.plural, first) };
    if (hasMore) links.next = this.url(def.plural, next); // no links.next on the last page
    const doc: Record<string, unknown> = this.document(def, page, params);
    doc.links = links;
    if (params.get('count') === 'true') {
      // meta.count only with count=true, the default of apps registered after 2024-10-13 (§1.2 [P]).
      doc.meta = opts.truncateCounts
        ? { count: 0, count_truncated: true }
        : { count: Math.min(rows.length, 2_000_000), count_truncated: rows.length > 2_000_000 };
    }
    return doc;
  }

  private url(plural: string, params: URLSearchParams): string {
    const query = params.toString().replace(/%5B/g, '[').replace(/%5D/g, ']');
    return `${this.options().apiUrl}/${plural}${query ? `?${query}` : ''}`;
  }

  /** `{data, included?}` for one resource or a list; `include` is ignored on writes (since May 2023, §1.2). */
  document(def: TypeDef, data: Row | Row[], params: URLSearchParams, write = false): Record<string, unknown> {
    const include = write ? [] : (params.get('include') ?? '').split(',').filter(Boolean);
    for (const name of include) {
      if (!(name in def.toOne) && !(name in def.toMany && name === 'recipients')) {
        throw badRequest(`${name} is not an includable relationship of ${def.type}.`);
      }
    }
    const fields = new Map<string, Set<string>>();
    for (const [key, raw] of params) {
      const path = keyPath(key);
      if (path[0] === 'fields' && path.length === 2)
        fields.set(path[1]!, new Set(raw.split(',').filter(Boolean)));
    }
    const rows = Array.isArray(data) ? data : [data];
    const seen = new Set(rows.map((r) => `${def.type}:${r.id}`));
    const included: Record<string, unknown>[] = [];
    const add = (type: string, row: Row | undefined) => {
      if (!row || seen.has(`${type}:${row.id}`)) return; // deduped by (type, id) (§6.1.1)
      seen.add(`${type}:${row.id}`);
      included.push(this.resource(TYPE_BY_NAME.get(type)!, row, fields, new Set()));
    };
    for (const row of rows) {
      for (const name of include) {
        if (name === 'recipients')
          for (const id of row.toMany.recipients ?? []) add('recipient', this.store.get('recipient', id));
        else add(def.toOne[name]!, this.store.get(def.toOne[name]!, row.toOne[name]));
      }
    }
    const serialised = rows.map((r) => this.resource(def, r, fields, new Set(include)));
    const doc: Record<string, unknown> = { data: Array.isArray(data) ? serialised : serialised[0] };
    if (include.length > 0) doc.included = included; // included[] only when include= is asked for
    return doc;
  }

  resource(
    def: TypeDef,
    row: Row,
    fields: Map<string, Set<string>>,
    linkage: Set<string>,
  ): Record<string, unknown> {
    const wanted = fields.get(def.type); // keyed by resource type, not relationship name (§1.2 [T])
    const keep = (name: string) => !wanted || wanted.has(name);
    const attributes: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row.attributes)) if (keep(k)) attributes[k] = v;
    const relationships: Record<string, unknown> = {};
    for (const [name, target] of Object.entries(def.toOne)) {
      if (!keep(name) || !(name in row.toOne)) continue;
      const id = row.toOne[name];
      relationships[name] = { data: id === null || id === undefined ? null : { type: target, id } };
    }
    for (const [name, query] of Object.entries(def.toMany)) {
      if (!keep(name)) continue;
      // To-many relationships carry links.related only (§1.1 [P]); linkage only when included.
      const rel: Record<string, unknown> = {
        links: { related: `${this.options().apiUrl}/${query.replace('{id}', String(row.id))}` },
      };
      if (linkage.has(name)) rel.data = (row.toMany[name] ?? []).map((id) => ({ type: 'recipient', id }));
      relationships[name] = rel;
    }
    return {
      type: def.type,
      id: row.id, // integer ids, serialised as JSON numbers (§6.1.10)
      attributes,
      relationships,
      links: { self: `${this.options().apiUrl}/${def.plural}/${row.id}` },
    };
  }
}
