// The job list's totals from day counts and slot-holding jobs, at the exact instants time changes them.
import type { JobItem } from '../../../functions/store/jobs/item';
import { allJobs, jobTotals } from '../../../functions/domain/bulk/job-totals';
import type { ViewedJob } from '../../../functions/domain/bulk/job-view';
import type { DayCounts } from '../../../functions/store/jobs/day-counts';

const day = '2026-03-01';
const dayEnd = Date.parse('2026-03-02T00:00:00.000Z');
const dayMs = 86_400_000;
const counts = (c: Partial<DayCounts>): DayCounts => ({
  awaiting_upload: 0,
  processing: 0,
  completed: 0,
  failed: 0,
  ...c,
});
const days = new Map([[day, counts({ awaiting_upload: 3, processing: 2, completed: 4, failed: 1 })]]);

const active = (status: JobItem['status'], until: number): ViewedJob => ({
  jobId: `${status}-${until}`,
  status,
  totalEmails: 0,
  processedEmails: 0,
  createdAt: `${day}T12:00:00.000Z`,
  uploadExpiresAtMs: until,
  deadlineAtMs: until,
});

describe('jobTotals', () => {
  it('counts stored awaiting and processing jobs as active only while a slot-holding job is', () => {
    const now = dayEnd - 1000;
    const slots = [active('awaiting_upload', now + 1), active('processing', now + 1)];
    expect(jobTotals(days, slots, now)).toEqual({
      awaiting_upload: 1,
      processing: 1,
      completed: 4,
      expired: 2, // the other two stored awaiting_upload: their URLs ran out
      failed: 2, // the stored failed one and a processing job past its deadline
    });
    // The same jobs a moment after their URL and deadline passed.
    expect(jobTotals(days, slots, now + 1)).toMatchObject({
      awaiting_upload: 0,
      processing: 0,
      expired: 3,
      failed: 3,
    });
    expect(allJobs(jobTotals(days, slots, now))).toBe(10);
  });

  it('turns completed into expired 30 days after the day ends, and drops each kind at its TTL', () => {
    const at = (ms: number) => jobTotals(days, [], ms);
    expect(at(dayEnd + 30 * dayMs - 1)).toMatchObject({ completed: 4, expired: 3, failed: 3 });
    // Unfinished jobs' items expire with the day + 30 days; completed ones now read expired.
    expect(at(dayEnd + 30 * dayMs)).toEqual({
      awaiting_upload: 0,
      processing: 0,
      completed: 0,
      expired: 4,
      failed: 0,
    });
    expect(at(dayEnd + 37 * dayMs - 1).expired).toBe(4);
    expect(allJobs(at(dayEnd + 37 * dayMs))).toBe(0);
  });
});
