// Paging a packed list view without DynamoDB: an in-memory ViewStore stands in for storage. A page read
// through the head's per-facet counts and only the chunks it needs equals filtering, sorting and
// slicing the whole list; a first read builds the view once.
import fc from 'fast-check';
import { safetyNetMailboxView, type SafetyNetMailboxRow } from '../../../functions/domain/workspace/model';
import { loadView, readPage, type ViewStore } from '../../../functions/domain/workspace/views';
import type { HeadFields, PackedChunk } from '../../../functions/store/list-views';

function memoryViews() {
  const views = new Map<string, { version: number; head: HeadFields; chunks: PackedChunk[] }>();
  const calls = { creates: 0, chunkReads: [] as number[][] };
  const store: ViewStore = {
    readViewItems: async (_companyId, kind) => {
      const view = views.get(kind);
      return view
        ? { head: { version: view.version, chunks: view.head.chunks }, chunks: view.chunks }
        : { head: undefined, chunks: [] };
    },
    readViewHead: async (_companyId, kind) => {
      const view = views.get(kind);
      return view && { version: view.version, chunks: view.head.chunks, counts: view.head.counts };
    },
    readViewChunks: async (_companyId, kind, indexes) => {
      calls.chunkReads.push(indexes);
      const view = views.get(kind)!;
      return indexes.map((i) => ({ count: view.chunks[i]!.rows.length, rows: view.chunks[i]!.rows }));
    },
    putWholeView: async (_companyId, kind, version, chunks, head) => {
      views.set(kind, { version, head, chunks });
    },
    createView: async (_companyId, kind, head, chunks) => {
      calls.creates++;
      if (views.has(kind)) return false;
      views.set(kind, { version: 1, head, chunks });
      return true;
    },
  };
  return { store, calls };
}

const mailbox = (n: number, activated: boolean): SafetyNetMailboxRow => ({
  id: `id-${n}`,
  // long enough that a few hundred rows fill several chunks
  email: `${'m'.repeat(200)}${String(n).padStart(5, '0')}@x.test`,
  activated,
  integrations: [{ service: 'outreach', externalId: String(n) }],
});

describe('a list page read from a packed view', () => {
  it('equals filtering and slicing the whole sorted list, for any filter, offset and limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { maxLength: 900 }),
        fc.option(fc.boolean(), { nil: undefined }),
        fc.nat({ max: 950 }),
        fc.integer({ min: 1, max: 100 }),
        async (switches, activated, offset, limit) => {
          const rows = switches.map((on, n) => mailbox(n, on)).reverse();
          const { store } = memoryViews();
          const matches = (row: SafetyNetMailboxRow) =>
            activated === undefined || row.activated === activated;
          const facet = activated === undefined ? '*' : `activated=${activated}`;
          // the first read builds the view; the second reads it through the head's counts
          for (let read = 0; read < 2; read++) {
            const page = await readPage(
              'c1',
              safetyNetMailboxView,
              { facet, matches },
              offset,
              limit,
              async () => rows,
              store,
            );
            const expected = [...rows].sort(safetyNetMailboxView.compare).filter(matches);
            expect(page.total).toBe(expected.length);
            expect(page.rows).toEqual(expected.slice(offset, offset + limit));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads only the chunks that hold the page', async () => {
    const rows = Array.from({ length: 900 }, (_, n) => mailbox(n, n % 3 === 0));
    const { store, calls } = memoryViews();
    const view = await loadView('c1', safetyNetMailboxView, async () => rows, store);
    expect(view.chunks.length).toBeGreaterThan(3);
    const page = await readPage(
      'c1',
      safetyNetMailboxView,
      { facet: 'activated=true', matches: (row) => row.activated },
      0,
      10,
      async () => rows,
      store,
    );
    expect(page.rows.map((row) => row.id)).toEqual(Array.from({ length: 10 }, (_, k) => `id-${k * 3}`));
    expect(calls.chunkReads).toEqual([[0]]);
    expect(calls.creates).toBe(1);
  });
});
