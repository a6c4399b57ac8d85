// Query-parameter parsing: defaults, bounds and messages naming the parameter.
import { ValidationError } from '../../../functions/errors';
import { stableId } from '../../../functions/domain/workspace/import';
import {
  listQuery,
  pagingParams,
  parseDetailWindow,
  parseQuery,
} from '../../../functions/domain/workspace/query';

const now = new Date('2026-03-04T10:00:00Z');

describe('query parameters', () => {
  it('defaults limit to 50 and offset to 0', () => {
    expect(parseQuery(listQuery({}), {})).toEqual({ limit: 50, offset: 0 });
    expect(parseQuery(listQuery({}), { limit: '1000', offset: '007' })).toEqual({ limit: 1000, offset: 7 });
    expect(Object.keys(pagingParams)).toEqual(['limit', 'offset']);
  });

  it.each(['0', '1001', '-5', '2.0', '1e2', ' 5', 'abc'])('rejects limit=%j naming it', (limit) => {
    expect(() => parseQuery(listQuery({}), { limit })).toThrow(ValidationError);
    expect(() => parseQuery(listQuery({}), { limit })).toThrow(/limit/);
  });

  it('defaults a detail window to the 90 days ending today', () => {
    expect(parseDetailWindow({}, now)).toEqual({ startDate: '2025-12-05', endDate: '2026-03-04' });
    expect(parseDetailWindow({ startDate: '2026-03-01' }, now)).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-04',
    });
    expect(() => parseDetailWindow({ startDate: '2026-03-05' }, now)).toThrow(
      /startDate must not be after endDate/,
    );
    expect(() => parseDetailWindow({ startDate: '1900-01-01' }, now)).toThrow(/at most/);
  });

  it('derives stable UUIDs from natural keys', () => {
    const id = stableId('c', 'cmbx', 'a@x.example');
    expect(id).toBe(stableId('c', 'cmbx', 'a@x.example'));
    expect(id).not.toBe(stableId('other', 'cmbx', 'a@x.example'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
