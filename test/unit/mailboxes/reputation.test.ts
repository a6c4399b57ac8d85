import {
  firstReputationDay,
  firstValueAfterDays,
  poolDays,
  reputationOn,
} from '../../../functions/domain/mailboxes/reputation';
import type { Placement } from '../../../functions/store/entities/mailboxes';

const connectedAt = '2026-03-01T15:30:00.000Z';
const tests = (day: string, ...placements: Placement[]) =>
  placements.map((placement) => ({ day, placement }));

describe('measured reputation (decisions "Connected mailboxes")', () => {
  it('has no value before the third day after the connection date, whatever the tests say', () => {
    expect(firstValueAfterDays).toBe(3);
    expect(firstReputationDay(connectedAt)).toBe('2026-03-04');
    const sent = [...tests('2026-03-01', 'inbox', 'inbox'), ...tests('2026-03-02', 'inbox')];
    expect(reputationOn('2026-03-01', connectedAt, sent)).toBeNull();
    expect(reputationOn('2026-03-03', connectedAt, sent)).toBeNull();
    expect(reputationOn('2026-03-04', connectedAt, sent)).toBe(100);
  });

  it('pools the 7 days ending the day: round(100 x inbox / found)', () => {
    expect(poolDays).toBe(7);
    const sent = [
      ...tests('2026-03-01', 'spam', 'spam', 'spam', 'spam'), // leaves the pool on 03-08
      ...tests('2026-03-02', 'inbox', 'inbox', 'inbox', 'spam'),
      ...tests('2026-03-05', 'inbox', 'inbox', 'inbox', 'inbox'),
    ];
    // 03-07: days 03-01..03-07: 7 inbox of 12 found
    expect(reputationOn('2026-03-07', connectedAt, sent)).toBe(Math.round((100 * 7) / 12));
    // 03-08: days 03-02..03-08: 7 of 8
    expect(reputationOn('2026-03-08', connectedAt, sent)).toBe(88);
    // 03-12: only 03-06..03-12: nothing found
    expect(reputationOn('2026-03-12', connectedAt, sent)).toBeNull();
  });

  it('counts only tests found: not found and pending ones neither help nor hurt', () => {
    const sent = [...tests('2026-03-04', 'inbox', 'missing', 'pending', 'spam')];
    expect(reputationOn('2026-03-04', connectedAt, sent)).toBe(50);
    expect(reputationOn('2026-03-05', connectedAt, tests('2026-03-05', 'missing', 'missing'))).toBeNull();
  });

  it('rounds half up, ignores tests after the day', () => {
    const sent = [
      ...tests('2026-03-04', 'inbox', 'spam', 'spam', 'spam', 'spam', 'spam', 'spam', 'spam'),
      ...tests('2026-03-06', 'spam'),
    ];
    expect(reputationOn('2026-03-04', connectedAt, sent)).toBe(13); // 12.5 -> 13
    expect(reputationOn('2026-03-05', connectedAt, sent)).toBe(13);
    expect(reputationOn('2026-03-06', connectedAt, sent)).toBe(11); // 1 of 9
  });
});
