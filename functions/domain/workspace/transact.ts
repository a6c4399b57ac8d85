// Commits an API write (item changes plus the list view) as one transaction behind the workspace lock,
// and tells a lost race (retry with fresh reads) from a running import (503, try later).
import { ServiceUnavailableError } from '../../errors';
import { backoff } from '../../store/dynamodb';
import { commitWorkspaceWrites, type WorkspaceWrite } from '../../store/workspace';

const maxWriteAttempts = 8;

/** How a write is committed: the store's, or a fake in tests. */
export type Commit = (
  companyId: string,
  now: Date,
  writes: WorkspaceWrite[],
) => Promise<'committed' | 'locked' | 'conflict'>;

/**
 * Runs `attempt` until its transaction commits. `attempt` reads what it needs and returns the items to
 * write (or null when there is nothing to write); a conflict means someone else wrote first.
 */
export async function commitWithRetry<T>(
  companyId: string,
  now: Date,
  attempt: () => Promise<{ items: WorkspaceWrite[]; result: T } | { items: null; result: T }>,
  commit: Commit = commitWorkspaceWrites,
): Promise<T> {
  for (let n = 0; n < maxWriteAttempts; n++) {
    const { items, result } = await attempt();
    if (items === null) return result;
    const outcome = await commit(companyId, now, items);
    if (outcome === 'committed') return result;
    if (outcome === 'locked') throw new ServiceUnavailableError(5);
    await backoff(n);
  }
  throw new ServiceUnavailableError(1);
}
