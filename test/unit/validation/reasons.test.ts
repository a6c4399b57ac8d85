// The reasons are declared once (STATUS_OF_REASON); the API's enum and the docs' reason table follow it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { completedBodySchema } from '../../../functions/domain/single-validation/result-body';
import { REASONS, STATUS_OF_REASON } from '../../../functions/domain/validation/types';

describe('the reasons', () => {
  it('are the enum of the API response', () => {
    expect(completedBodySchema.shape.result.shape.reason.options).toEqual(REASONS);
  });

  it('each have one row in docs/validation.md with their status', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/validation.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z0-9_]+)` +\| ([a-z_]+) +\|/gm)].map(([, reason, status]) => [
      reason!,
      status!,
    ]);
    expect(Object.fromEntries(rows)).toEqual(STATUS_OF_REASON);
    expect(rows).toHaveLength(REASONS.length);
  });
});
