// The scan's lease on a processing job: held while a run scans (renewed as it goes), so a retried
// upload event takes over a scan whose worker died within one short lease, and leaves a live one alone.
import { systemClock, type Clock } from '../../clock';
import type { Logger } from '../../log';
import { getJobItem, type JobItem } from '../../store/jobs/item';
import { renewScanLease, takeScanLease } from '../../store/jobs/slots-and-leases';
import { scanLeaseRenewSeconds, scanLeaseSeconds } from './limits';

/** Waited past a lease's end before reading it again: its holder's last renewal may be in flight. */
const leaseSlackMs = 1000;
/** How late a live holder's renewal may be (a busy table) before its lease is waited out instead. */
const renewalSlackMs = 3000;
/** How often a waiting event reads the lease for its holder's renewal. */
const renewalPollMs = 1000;

export interface ScanLeaseDeps {
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes over the scan of a processing job whose scan never recorded its outcome. A lease still held
 * is watched for its holder's next renewal (due scanLeaseRenewSeconds after the last one): renewed,
 * the holder is alive and this event is a duplicate, acknowledged then; overdue, the lease is waited
 * out (it is short) and, unchanged at its end, its holder died and this run takes it. A lease longer
 * than scanLeaseSeconds is left to its holder.
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
    const renewalOverdueAt = held - (scanLeaseSeconds - scanLeaseRenewSeconds) * 1000 + renewalSlackMs;
    const leaseOverAt = held + leaseSlackMs;
    let after: JobItem | undefined;
    for (let wakeAt = 0; wakeAt < leaseOverAt;) {
      const t = clock().getTime();
      // until the renewal is overdue, a read a second; then one more, once the lease is over
      wakeAt = t < renewalOverdueAt ? Math.min(renewalOverdueAt, t + renewalPollMs) : leaseOverAt;
      await sleep(Math.max(0, wakeAt - t));
      after = await getJobItem(job.companyId, job.jobId, true);
      if (!after || after.status !== 'processing' || after.chunkCount !== undefined) return undefined;
      const lease = after.scanLeaseUntilMs;
      if (lease === held) continue;
      // given back (a failed scan): the next attempt takes it
      if (lease === undefined || lease < clock().getTime()) break;
      // renewed: the holder is alive, this event a duplicate
      return undefined;
    }
    if (!after) return undefined;
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
