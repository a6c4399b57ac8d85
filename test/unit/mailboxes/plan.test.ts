import { planRecipients } from '../../../functions/domain/mailboxes/placement';

const mailbox = (
  mailboxId: string,
  domain: string,
  connectionStatus: 'connected' | 'credentials_error' = 'connected',
) => ({
  companyId: 'c1',
  mailboxId,
  email: `${mailboxId}@${domain}`,
  domain,
  connectionStatus,
});

describe('who sends placement tests to whom', () => {
  const network = [
    mailbox('a1', 'alpha.test'),
    mailbox('a2', 'alpha.test'),
    mailbox('b1', 'beta.test'),
    mailbox('c1', 'gamma.test'),
    mailbox('c2', 'gamma.test', 'credentials_error'),
  ];

  it('never sends to the own domain, nor to a mailbox whose credentials fail', () => {
    const plan = planRecipients(network, '2026-12-02', 4);
    for (const sender of network) {
      const to = plan.get(sender.mailboxId)!;
      expect(to).toHaveLength(4);
      for (const r of to) {
        expect(r.email.endsWith(`@${sender.domain}`)).toBe(false);
        expect(r.mailboxId).not.toBe('c2');
        expect(network.some((m) => m.mailboxId === r.mailboxId)).toBe(true);
      }
    }
    // a mailbox in credentials_error still sends (its login is how it recovers)
    expect(plan.get('c2')).toHaveLength(4);
  });

  it('counts PLACEMENT_TESTS_PER_DAY recipients, repeating candidates when there are fewer', () => {
    const two = [mailbox('a1', 'alpha.test'), mailbox('b1', 'beta.test')];
    const plan = planRecipients(two, '2026-12-02', 3);
    expect(plan.get('a1')!.map((r) => r.mailboxId)).toEqual(['b1', 'b1', 'b1']);
    expect(plan.get('b1')!.map((r) => r.mailboxId)).toEqual(['a1', 'a1', 'a1']);
  });

  it('sends nothing when the network has no other domain', () => {
    const plan = planRecipients([mailbox('a1', 'alpha.test'), mailbox('a2', 'alpha.test')], '2026-12-02', 4);
    expect(plan.get('a1')).toEqual([]);
    expect(plan.get('a2')).toEqual([]);
  });

  it('is the same for a day and changes between days', () => {
    const big = Array.from({ length: 12 }, (_, i) => mailbox(`m${i}`, `d${i % 4}.test`));
    const order = (day: string) =>
      planRecipients(big, day, 2)
        .get('m0')!
        .map((r) => r.mailboxId)
        .join(',');
    expect(order('2026-12-02')).toBe(order('2026-12-02'));
    const days = new Set(['2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05', '2026-12-06'].map(order));
    expect(days.size).toBeGreaterThan(1);
  });
});
