// The workspace's write rules without DynamoDB: the seat rule of an invite, what a sequence switch has
// to write, and how a write's commit outcome is handled (retry a lost race, 503 during an import).
import { ConflictError, ServiceUnavailableError } from '../../../functions/errors';
import { inviteConflictMessages, seatFor } from '../../../functions/domain/workspace/invites';
import type { SequenceRow, UserRow } from '../../../functions/domain/workspace/model';
import { sequenceSwitch } from '../../../functions/domain/workspace/safety-net';
import { commitWithRetry, type Commit } from '../../../functions/domain/workspace/transact';

const now = new Date('2026-11-22T12:00:00.000Z');
const active = (email: string): UserRow => ({
  email,
  id: `id-${email}`,
  name: email,
  role: 'member',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  inviteExpiresAt: null,
  mailboxes: [],
});
const invited = (email: string, expiresAt: string): UserRow => ({
  ...active(email),
  id: null,
  status: 'invited',
  createdAt: null,
  inviteExpiresAt: expiresAt,
});
const tomorrow = '2026-11-23T12:00:00.000Z';
const yesterday = '2026-11-21T12:00:00.000Z';

function conflictOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ConflictError) return error.message;
    throw error;
  }
  return undefined;
}

describe('the seat rule of an invite', () => {
  it('takes a free seat for a new email', () => {
    expect(seatFor([active('a@x.test')], 'new@x.test', 2, now)).toEqual({
      existing: undefined,
      refresh: false,
    });
  });

  it('refuses a new email when active users and live invites hold every seat', () => {
    const rows = [active('a@x.test'), invited('b@x.test', tomorrow)];
    expect(conflictOf(() => seatFor(rows, 'new@x.test', 2, now))).toBe(inviteConflictMessages.noSeat);
  });

  it('does not count an expired invite as a seat', () => {
    const rows = [active('a@x.test'), invited('b@x.test', yesterday)];
    expect(seatFor(rows, 'new@x.test', 2, now).refresh).toBe(false);
  });

  it('refreshes a live invite without a new seat, even with every seat taken', () => {
    const rows = [active('a@x.test'), invited('b@x.test', tomorrow)];
    expect(seatFor(rows, 'b@x.test', 2, now)).toEqual({ existing: rows[1], refresh: true });
  });

  it('treats an expired invite to the same email as a new invite that needs a seat', () => {
    const rows = [active('a@x.test'), active('c@x.test'), invited('b@x.test', yesterday)];
    expect(conflictOf(() => seatFor(rows, 'b@x.test', 2, now))).toBe(inviteConflictMessages.noSeat);
    expect(seatFor(rows, 'b@x.test', 3, now)).toEqual({ existing: rows[2], refresh: false });
  });

  it("refuses an active user's email whatever the seats", () => {
    expect(conflictOf(() => seatFor([active('a@x.test')], 'a@x.test', 10, now))).toBe(
      inviteConflictMessages.active,
    );
  });
});

describe('switching a sequence', () => {
  const row = (crmSequenceId: string, activated: boolean): SequenceRow => ({
    id: `id-${crmSequenceId}`,
    name: 'n',
    crmSequenceId,
    service: 'outreach',
    activated,
    owner: { email: 'o@x.test', firstName: 'O', lastName: 'X' },
  });
  const owner = (sk: string, activated: boolean) => ({ pk: 'COMPANY#c', sk, activated });
  const target = { service: 'outreach' as const, crmSequenceId: '7' };

  it('writes the owner rows that hold the other value', () => {
    const items = [owner('a', false), owner('b', true), owner('c', false)];
    const { pending, upToDate } = sequenceSwitch(items, [row('7', false)], target, true);
    expect(pending.map((item) => item.sk)).toEqual(['a', 'c']);
    expect(upToDate).toBe(false);
  });

  it('writes nothing when items and view already hold the value', () => {
    const items = [owner('a', true), owner('b', true)];
    expect(sequenceSwitch(items, [row('7', true), row('8', false)], target, true)).toEqual({
      pending: [],
      upToDate: true,
    });
  });

  it('still rewrites the view when only the view is behind (a half-finished earlier call)', () => {
    const result = sequenceSwitch([owner('a', true)], [row('7', false)], target, true);
    expect(result).toEqual({ pending: [], upToDate: false });
  });
});

describe('committing a workspace write', () => {
  const fakeCommit = (...outcomes: Awaited<ReturnType<Commit>>[]) => {
    const calls: number[] = [];
    const commit: Commit = async (_companyId, _now, writes) => {
      calls.push(writes.length);
      return outcomes.shift() ?? 'committed';
    };
    return { commit, calls };
  };
  const write = { ConditionCheck: { TableName: 't', Key: { pk: 'p', sk: 's' }, ConditionExpression: 'x' } };

  it('reads again and retries after a lost race, then returns the result', async () => {
    const { commit, calls } = fakeCommit('conflict', 'conflict', 'committed');
    let reads = 0;
    const result = await commitWithRetry('c', now, async () => ({ items: [write], result: ++reads }), commit);
    expect(result).toBe(3);
    expect(calls).toEqual([1, 1, 1]);
  });

  it('answers 503 at once while an import holds the workspace', async () => {
    const { commit, calls } = fakeCommit('locked');
    const run = commitWithRetry('c', now, async () => ({ items: [write], result: 'x' }), commit);
    await expect(run).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls).toHaveLength(1);
  });

  it('commits nothing when the attempt has nothing to write', async () => {
    const { commit, calls } = fakeCommit();
    expect(await commitWithRetry('c', now, async () => ({ items: null, result: 'same' }), commit)).toBe(
      'same',
    );
    expect(calls).toEqual([]);
  });
});
