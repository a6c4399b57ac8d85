// An estimate's statistics for the whole file from the statuses of its sample.
import { bulkStatuses, emptyStatistics, type Statistics } from '../statuses';

/**
 * Scales the sample's counts to `rows`: whole numbers summing exactly to `rows` (largest remainder:
 * each status gets the floor of its share, the rows left go to the largest fractions, ties in status
 * order). A sample of the whole file projects to its own counts.
 */
export function projectStatistics(sample: Statistics, rows: number): Statistics {
  const sampled = bulkStatuses.reduce((sum, status) => sum + sample[status], 0);
  const projected = emptyStatistics();
  if (sampled === 0 || rows === 0) return projected;
  const shares = bulkStatuses.map((status) => {
    const exact = (sample[status] * rows) / sampled;
    projected[status] = Math.floor(exact);
    return { status, fraction: exact - Math.floor(exact) };
  });
  let left = rows - bulkStatuses.reduce((sum, status) => sum + projected[status], 0);
  // stable sort: equal fractions keep the status order
  for (const { status } of [...shares].sort((a, b) => b.fraction - a.fraction)) {
    if (left <= 0) break;
    projected[status] += 1;
    left -= 1;
  }
  return projected;
}
