// The scan's lease on a processing job: held while a run scans (renewed as it goes), so a retried
// upload event takes over a scan whose worker died within one short lease, and leaves a live one alone.
import { systemClock, type Clock } from '../../clock';
import type { Logger } from '../../log';
import { getJobItem, type JobItem } from '../../store/jobs/item';
import { renewScanLease, takeScanLease } from '../../store/jobs/slots-and-leases';
import { scanLeaseRenewSeconds, scanLeaseSeconds } from './limits';

/** Waited past a lease's end before reading it again: its holder's last renewal may be in flight. */
const leaseSlackMs = 1000;

export interface ScanLeaseDeps {
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes over the scan of a processing job whose scan never recorded its outcome. A lease still held
 * is waited out (it is short): unchanged at its end, its holder died and this run takes it; renewed,
 * the holder is alive and this event is a duplicate. A lease longer than scanLeaseSeconds is left to
 * its holder.
 * @returns the lease's end now held, or undefined when another run scans (or the scan is done)
 */
export async function takeOverScan(job: JobItem, deps: ScanLeaseDeps = {}): Promise<number | undefined> {
  const clock = deps.clock ?? systemClock;
  const sleep = deps.sleep ?? sleepFor;
  let seen = job;
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = clock().getTime();
    const until = now + scanLeaseSeconds * 1000;
    if (await takeScanLease(seen, now, until)) return until;
    const held = seen.scanLeaseUntilMs;
    if (held === undefined || held - now > scanLeaseSeconds * 1000) return undefined;
    await sleep(Math.max(0, held - now) + leaseSlackMs);
    const after = await getJobItem(job.companyId, job.jobId, true);
    const holderAlive = after?.scanLeaseUntilMs !== held;
    if (!after || after.status !== 'processing' || after.chunkCount !== undefined || holderAlive)
      return undefined;
    seen = after;
  }
  return undefined;
}

/** Renews the lease this run holds (its end `heldUntilMs`) every scanLeaseRenewSeconds until stop(). */
export function keepScanLease(
  job: Pick<JobItem, 'companyId' | 'jobId'>,
  heldUntilMs: number,
  log: Logger,
  clock: Clock = systemClock,
): { stop(): void } {
  let held = heldUntilMs;
  let renewing = false;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    const until = clock().getTime() + scanLeaseSeconds * 1000;
    renewScanLease(job, held, until)
      .then((renewed) => {
        if (renewed) held = until;
        // the scan recorded its outcome, or another run took it over: nothing left to hold
        else clearInterval(timer);
      })
      .catch((error: unknown) => log.warn('scan lease not renewed', { error: String(error) }))
      .finally(() => (renewing = false));
  }, scanLeaseRenewSeconds * 1000);
  // a Lambda's event loop need not wait for it
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
