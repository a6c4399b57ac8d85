// Packed list views: chunking keeps order and size, upserts keep order and rewrite only what changed.
import fc from 'fast-check';
import {
  chunkRows,
  maxChunkBytes,
  replaceRows,
  upsertRow,
  type LoadedView,
} from '../../../functions/domain/workspace/views';
import { userView, type UserRow } from '../../../functions/domain/workspace/model';

const user = (email: string, name = 'x'): UserRow => ({
  email,
  id: null,
  name,
  role: 'member',
  status: 'invited',
  createdAt: null,
  inviteExpiresAt: '2026-01-01T00:00:00.000Z',
  mailboxes: [],
});
const viewOf = (rows: UserRow[]): LoadedView<UserRow> => ({
  exists: true,
  version: 3,
  chunks: chunkRows(userView, rows),
});

describe('views', () => {
  it('splits rows into chunks under the size limit without losing order', () => {
    const rows = Array.from({ length: 5000 }, (_, i) =>
      user(`u${String(i).padStart(5, '0')}@x.example`, 'n'.repeat(100)),
    );
    const chunks = chunkRows(userView, rows);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks)
      expect(JSON.stringify(chunk.rows.map(userView.encode)).length).toBeLessThanOrEqual(maxChunkBytes);
    expect(chunks.flatMap((c) => c.rows)).toEqual(rows);
  });

  it('encodes and decodes rows losslessly', () => {
    const row: UserRow = {
      ...user('a@x.example'),
      id: 'i',
      status: 'active',
      createdAt: 'c',
      inviteExpiresAt: null,
      mailboxes: [{ email: 'm@x', id: '1' }],
    };
    expect(userView.decode(JSON.parse(JSON.stringify(userView.encode(row))))).toEqual(row);
  });

  it('inserts in order and replaces by identity', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.emailAddress(), { maxLength: 40 }),
        fc.emailAddress(),
        (emails, extra) => {
          const rows = emails.sort().map((e) => user(e));
          const change = upsertRow(userView, viewOf(rows), user(extra, 'new'));
          const after = change.view.chunks.flatMap((c) => c.rows);
          expect(after.map((r) => r.email)).toEqual([...new Set([...emails, extra])].sort());
          expect(after.find((r) => r.email === extra)?.name).toBe('new');
        },
      ),
    );
  });

  it('marks only the touched chunk as changed on an in-place replace', () => {
    const rows = Array.from({ length: 5000 }, (_, i) =>
      user(`u${String(i).padStart(5, '0')}@x.example`, 'n'.repeat(100)),
    );
    const view = viewOf(rows);
    const last = rows[4999]!;
    const change = replaceRows(userView, view, [{ ...last, name: 'changed' }]);
    expect([...change.changed]).toEqual([view.chunks.length - 1]);
  });
});
