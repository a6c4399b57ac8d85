// The Safety Net's rules that need no server: merging mailboxes by address, one sequence row per owner,
// the retry time of a 429, webhook signatures and which emails are protected.
import { createHmac } from 'node:crypto';
import { mergedMailboxes, ownerRows } from '../../../functions/domain/safety-net/lists';
import { isProtected } from '../../../functions/domain/safety-net/prevention';
import { retryTimeOf } from '../../../functions/domain/safety-net/platforms/session';
import { signatureHolds, webhookSignature } from '../../../functions/domain/safety-net/webhooks';
import type { ScheduledEmail } from '../../../functions/domain/safety-net/platforms/types';

const now = new Date('2026-12-02T01:00:00.000Z');
const owner = (email: string) => ({ email, firstName: 'Ada', lastName: 'Admin' });

describe('mergedMailboxes', () => {
  it('keeps one entry per address whatever its case, with the lowest platform id', () => {
    const merged = mergedMailboxes([
      { externalId: '12', email: 'Rep1@Example.COM', owner: null },
      { externalId: '3', email: 'rep1@example.com', owner: null },
      { externalId: '7', email: 'rep2@example.com', owner: null },
    ]);
    expect([...merged]).toEqual([
      ['rep1@example.com', '3'],
      ['rep2@example.com', '7'],
    ]);
  });

  it('drops what is not an address', () => {
    expect(mergedMailboxes([{ externalId: '1', email: 'nobody', owner: null }]).size).toBe(0);
  });
});

describe('ownerRows', () => {
  it('makes one row per sequence and owner, owners compared without case', () => {
    const rows = ownerRows([
      { crmSequenceId: '1', name: 'Intro', owner: owner('Ada@acme.example') },
      { crmSequenceId: '1', name: 'Intro', owner: owner('ada@ACME.example') },
      { crmSequenceId: '1', name: 'Intro', owner: owner('max@acme.example') },
      { crmSequenceId: '2', name: 'Follow-up', owner: owner('ada@acme.example') },
    ]);
    expect([...rows.values()].map((r) => `${r.crmSequenceId}:${r.owner.email}`)).toEqual([
      '1:ada@acme.example',
      '1:max@acme.example',
      '2:ada@acme.example',
    ]);
  });
});

describe('retryTimeOf', () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it('reads Retry-After as seconds from now', () => {
    expect(retryTimeOf(headers({ 'retry-after': '30' }), undefined, now).toISOString()).toBe(
      '2026-12-02T01:00:30.000Z',
    );
  });

  it('reads Retry-After as an epoch time, an HTTP date or an ISO time', () => {
    expect(retryTimeOf(headers({ 'retry-after': '1796173260' }), undefined, now).getTime()).toBe(
      1796173260000,
    );
    expect(
      retryTimeOf(headers({ 'retry-after': 'Wed, 02 Dec 2026 01:05:00 GMT' }), undefined, now).toISOString(),
    ).toBe('2026-12-02T01:05:00.000Z');
  });

  it("reads Outreach's 'please try again at' detail when there is no header", () => {
    const body = {
      errors: [
        {
          id: 'rateLimitExceeded',
          detail:
            'You have exceeded your permitted rate limit of 10,000; please try again at 2026-12-02T02:00:00.',
        },
      ],
    };
    expect(retryTimeOf(headers({}), body, now).toISOString()).toBe('2026-12-02T02:00:00.000Z');
  });

  it('waits a minute when the platform names no time (Salesloft need not)', () => {
    expect(retryTimeOf(headers({}), { error: 'Too many requests' }, now).toISOString()).toBe(
      '2026-12-02T01:01:00.000Z',
    );
  });
});

describe('webhook signatures', () => {
  const body = '{"data":{"type":"mailing","id":1}}';

  it('signs Outreach deliveries with hex HMAC-SHA256 and Salesloft ones with hex HMAC-SHA1', () => {
    expect(webhookSignature('outreach', 's3cret', body)).toBe(
      createHmac('sha256', 's3cret').update(body).digest('hex'),
    );
    expect(webhookSignature('salesloft', 's3cret', body)).toBe(
      createHmac('sha1', 's3cret').update(body).digest('hex'),
    );
  });

  it('accepts the right signature in any case and refuses others', () => {
    const good = webhookSignature('outreach', 's3cret', body);
    expect(signatureHolds(good, good.toUpperCase())).toBe(true);
    expect(signatureHolds(good, webhookSignature('outreach', 'other', body))).toBe(false);
    expect(signatureHolds(good, undefined)).toBe(false);
    expect(signatureHolds(good, 'zz')).toBe(false);
  });
});

describe('isProtected', () => {
  const email = (mailbox: string, sequence: string | null): ScheduledEmail => ({
    id: '1',
    mailbox,
    recipient: 'dead@mailvet.test',
    scheduledAt: null,
    sequence: sequence === null ? null : { crmSequenceId: sequence, name: 'S' },
    stop: {},
    ownerRef: null,
  });
  const protection = { mailboxes: new Set(['rep1@example.com']), sequences: new Set(['42']) };

  it('protects an email from an activated mailbox, in any case, or of an activated sequence', () => {
    expect(isProtected(email('REP1@example.com', null), protection)).toBe(true);
    expect(isProtected(email('rep2@example.com', '42'), protection)).toBe(true);
    expect(isProtected(email('rep2@example.com', '43'), protection)).toBe(false);
    expect(isProtected(email('rep2@example.com', null), protection)).toBe(false);
  });
});
