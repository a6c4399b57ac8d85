import { countTestAddresses } from '../../../functions/domain/bulk/validate-chunk';
import { ValidationEngine } from '../../../functions/domain/validation';
import type { DnsClient } from '../../../functions/domain/validation';
import { isTestAddress, testAddressOf } from '../../../functions/domain/validation/test-addresses';

/** A resolver that records every name it is asked about: test addresses must never reach it. */
function recordingDns(): DnsClient & { asked: string[] } {
  const asked: string[] = [];
  const refuse = (name: string) => {
    asked.push(name);
    return Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
  };
  return { asked, resolveMx: refuse, resolve4: refuse, resolve6: refuse };
}

const table: [string, string, string][] = [
  ['safe@mailvet.test', 'safe', 'accepted'],
  ['catch-all@mailvet.test', 'safe', 'catch_all'],
  ['bounce@mailvet.test', 'block_bounce_risk', 'mailbox_not_found'],
  ['disabled@mailvet.test', 'block_bounce_risk', 'mailbox_disabled'],
  ['dead@mailvet.test', 'dead_email', 'known_dead'],
  ['abuse@mailvet.test', 'do_not_mail_abuse', 'role_abuse'],
  ['full@mailvet.test', 'some_risk', 'mailbox_full'],
  ['greylisted@mailvet.test', 'some_risk', 'greylisted'],
  ['slow@mailvet.test', 'safe', 'accepted'],
  ['SAFE+Anything.At-All@MailVet.TEST', 'safe', 'accepted'],
  ['Full+1@mailvet.test', 'some_risk', 'mailbox_full'],
  ['someone@mailvet.test', 'block_bounce_risk', 'mailbox_not_found'],
  ['safety@mailvet.test', 'block_bounce_risk', 'mailbox_not_found'],
  ['"Ann" <dead+x@mailvet.test>', 'dead_email', 'known_dead'],
];

describe('test addresses at mailvet.test', () => {
  it.each(table)(
    '%s is %s / %s on the single path and in bulk, without DNS',
    async (email, status, reason) => {
      const dns = recordingDns();
      const engine = new ValidationEngine({ dnsClient: dns, smtpProbe: true, slowTestAddressMs: 0 });
      const single = await engine.validate(email);
      expect([single.result.status, single.result.reason]).toEqual([status, reason]);
      expect(single.mailbox.smtpProbe).toBe('skipped');
      const batch = await engine.prepare([email, 'x@other.example']);
      expect([batch.verdictAt(0).status, batch.verdictAt(0).reason]).toEqual([status, reason]);
      expect(batch.classify(email).reason).toBe(reason);
      expect(batch.probeNeed(email)).toBeNull();
      expect(dns.asked.filter((name) => name.includes('mailvet'))).toEqual([]);
    },
  );

  it('slow@ answers only once its delay from the request has passed', async () => {
    const engine = new ValidationEngine({ dnsClient: recordingDns(), slowTestAddressMs: 2000 });
    const started = Date.now();
    // asked 1.8 s ago: about 0.2 s left, far from the whole 2 s (a wide margin for a busy machine)
    const result = await engine.validate('slow@mailvet.test', { requestedAt: new Date(started - 1800) });
    expect(result.result.status).toBe('safe');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(1500);
  });

  it('recognises only the test domain, after extraction', () => {
    expect(isTestAddress('  safe@mailvet.test ')).toBe(true);
    expect(isTestAddress('mailto:bounce@MAILVET.test')).toBe(true);
    expect(isTestAddress('safe@mailvet.test.example')).toBe(false);
    expect(isTestAddress('safe@sub.mailvet.test')).toBe(false);
    expect(isTestAddress('a@mailvet.test, b@mailvet.test')).toBe(false);
    expect(isTestAddress(42)).toBe(false);
    expect(testAddressOf('safe@example.com')).toBeUndefined();
    expect(testAddressOf('slow+x@mailvet.test')?.slow).toBe(true);
  });

  it('bulk counts the rows usage must not count', () => {
    expect(
      countTestAddresses([
        'safe@mailvet.test',
        undefined,
        'ann@ok.test',
        'Bounce@MailVet.Test',
        '',
        'x@mailvet.testing',
      ]),
    ).toBe(2);
  });
});
