// Commits an API write (item changes plus the list view) as one transaction behind the workspace lock,
// and tells a lost race (retry with fresh reads) from a running import (503, try later).
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb } from '../../clients/dynamodb';
import { ServiceUnavailableError } from '../../errors';
import { workspaceUnlocked } from './lock';
import { backoff } from './store';
import type { TransactItem } from './views';

const maxWriteAttempts = 8;

/**
 * Runs `attempt` until its transaction commits. `attempt` reads what it needs and returns the items to
 * write (or null when there is nothing to write); a condition failure means someone else wrote first.
 */
export async function commitWithRetry<T>(
  companyId: string,
  now: Date,
  attempt: () => Promise<{ items: TransactItem[]; result: T } | { items: null; result: T }>,
): Promise<T> {
  for (let n = 0; n < maxWriteAttempts; n++) {
    const { items, result } = await attempt();
    if (items === null) return result;
    try {
      await dynamoDb().send(
        new TransactWriteCommand({ TransactItems: [workspaceUnlocked(companyId, now), ...items] }),
      );
      return result;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if ((error as Error).name !== 'TransactionCanceledException' || !reasons) throw error;
      if (reasons[0]?.Code === 'ConditionalCheckFailed') throw new ServiceUnavailableError(5);
      const retryable = reasons.some(
        (r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict',
      );
      if (!retryable) throw error;
      await backoff(n);
    }
  }
  throw new ServiceUnavailableError(1);
}
