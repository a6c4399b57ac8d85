// The workspace lock: a lease an import holds while it rewrites items and views. API writes check it
// inside their transactions (functions/store/workspace.ts commitWorkspaceWrites), so none can slip
// between an import's item writes and its view rebuild.
import { systemClock, type Clock } from '../../clock';
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../errors';
import { deleteWorkspaceLock, putWorkspaceLock } from '../../store/workspace';

/** Long enough for the largest import; a crashed import frees the workspace after it. */
const leaseMs = 15 * 60_000;

export async function acquireWorkspaceLock(companyId: string, clock: Clock = systemClock): Promise<string> {
  const now = clock();
  const token = randomUUID();
  const acquired = await putWorkspaceLock(companyId, token, new Date(now.getTime() + leaseMs), now);
  if (!acquired) throw new ConflictError('Another import of this workspace is running');
  return token;
}

export async function releaseWorkspaceLock(companyId: string, token: string): Promise<void> {
  // Not ours any more (the lease ran out and another import took it): nothing to release.
  await deleteWorkspaceLock(companyId, token);
}
