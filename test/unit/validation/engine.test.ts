// Each row of the status table (docs/api.md) against real DNS and SMTP servers on loopback.
import { STATUSES, ValidationEngine, type ValidationResult } from '../../../functions/domain/validation';
import { closedPort, startHarness, type Harness } from './fixtures/harness';

let h: Harness;
let dnsOnly: ValidationEngine;
let smtp: ValidationEngine;

beforeAll(async () => {
  h = await startHarness();
  dnsOnly = h.dnsOnly();
  smtp = h.withSmtp();
});
afterAll(async () => {
  await h.close();
});

const verdictOf = (r: ValidationResult) => [r.result.status, r.result.reason];

describe('blank and syntax', () => {
  it.each(['', '   ', '\t\r\n'])('calls %j blank (block_bounce_risk)', async (raw) => {
    expect(verdictOf(await dnsOnly.validate(raw))).toEqual(['block_bounce_risk', 'blank']);
  });

  it('calls a missing value blank too', async () => {
    expect(verdictOf(await dnsOnly.validate(undefined))).toEqual(['block_bounce_risk', 'blank']);
  });

  it.each([
    ['no-at-sign.test', 'missing_at'],
    ['a..b@ok.test', 'invalid_local_part'],
    ['.a@ok.test', 'invalid_local_part'],
    ['a.@ok.test', 'invalid_local_part'],
    ['a b@ok.test', 'invalid_local_part'],
    [`${'a'.repeat(65)}@ok.test`, 'local_part_too_long'],
    ['a@ok..test', 'invalid_domain'],
    ['a@-ok.test', 'invalid_domain'],
    ['a@localhost', 'single_label_domain'],
    ['a@1.2.3.4', 'numeric_tld'],
    [`a@${'b'.repeat(64)}.test`, 'domain_label_too_long'],
    ['""@ok.test', 'invalid_quoted_local_part'],
    ['a@[1.2.3.999]', 'invalid_ip_literal'],
  ])('rejects %j as invalid_syntax (%s)', async (raw, sub) => {
    const r = await dnsOnly.validate(raw);
    expect(r.result).toEqual({ reason: 'invalid_syntax', status: 'block_bounce_risk', subStatus: sub });
  });

  it('rejects an address over 254 octets even when each part fits', async () => {
    const domain = `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.${'g'.repeat(60)}.test`; // 248 octets
    const r = await dnsOnly.validate(`${'a'.repeat(64)}@${domain}`);
    expect(r.result.subStatus).toBe('address_too_long');
  });

  it('treats an IP-literal domain as some_risk, not invalid', async () => {
    expect(verdictOf(await dnsOnly.validate('user@[93.184.216.34]'))).toEqual(['some_risk', 'ip_literal']);
  });
});

describe('DNS', () => {
  it('calls NXDOMAIN no_such_domain (block_bounce_risk)', async () => {
    const r = await dnsOnly.validate('alice@does-not-exist.test');
    expect(verdictOf(r)).toEqual(['block_bounce_risk', 'no_such_domain']);
    expect(r.domain.hasMailServer).toBe(false);
  });

  it('calls a null MX (RFC 7505) null_mx, even when the domain has an A record', async () => {
    expect(verdictOf(await dnsOnly.validate('alice@nullmx.test'))).toEqual(['block_bounce_risk', 'null_mx']);
    expect(verdictOf(await dnsOnly.validate('alice@nullmx2.test'))).toEqual(['block_bounce_risk', 'null_mx']);
  });

  it('uses the A record as implicit MX when there is no MX', async () => {
    const r = await dnsOnly.validate('alice@implicit.test');
    expect(r.result).toEqual({ reason: 'domain_ok', status: 'safe', subStatus: 'implicit_mx' });
    expect(r.domain.mxRecords).toEqual([]);
  });

  it('calls a domain with neither MX nor A/AAAA no_mail_server', async () => {
    const r = await dnsOnly.validate('alice@no-mail.test');
    expect(r.result).toEqual({
      reason: 'no_mail_server',
      status: 'block_bounce_risk',
      subStatus: 'no_mx_no_address',
    });
  });

  it('calls an MX host that does not resolve no_mail_server', async () => {
    const r = await dnsOnly.validate('alice@dangling.test');
    expect(r.result).toEqual({
      reason: 'no_mail_server',
      status: 'block_bounce_risk',
      subStatus: 'mx_unresolvable',
    });
    expect(r.domain.mxRecords).toEqual([{ exchange: 'mx.nowhere.test', priority: 10 }]);
  });

  it('falls back to the next MX when the first does not resolve', async () => {
    expect(verdictOf(await dnsOnly.validate('alice@second-mx.test'))).toEqual(['safe', 'domain_ok']);
  });

  it('calls SERVFAIL dns_error (some_risk, never invalid)', async () => {
    expect(verdictOf(await dnsOnly.validate('alice@servfail.test'))).toEqual(['some_risk', 'dns_error']);
    expect(verdictOf(await dnsOnly.validate('alice@mx-servfail.test'))).toEqual(['some_risk', 'dns_error']);
  });

  it('calls a resolver timeout dns_timeout (some_risk, never invalid), within the configured timeout', async () => {
    const started = Date.now();
    // slow.test's server never answers, so a short timeout cannot race an answer.
    const r = await h.dnsOnly({ dnsTimeoutMs: 300 }).validate('alice@slow.test');
    expect(verdictOf(r)).toEqual(['some_risk', 'dns_timeout']);
    expect(r.domain.hasMailServer).toBeNull();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('normalises an IDN domain to ASCII (UTS-46) and validates it', async () => {
    const r = await dnsOnly.validate('  Jörg@Bücher.TEST ');
    expect(r.email).toBe('Jörg@xn--bcher-kva.test');
    expect(r.domain.name).toBe('xn--bcher-kva.test');
    expect(r.domain.unicodeName).toBe('bücher.test');
    // an internationalised local part needs SMTPUTF8 from the receiving server: a risk, not invalid
    expect(verdictOf(r)).toEqual(['some_risk', 'smtputf8_local_part']);
    expect(verdictOf(await dnsOnly.validate('joerg@bücher.test'))).toEqual(['safe', 'domain_ok']);
  });

  it('refuses MX hosts on private addresses unless allowPrivateMx', async () => {
    const strict = h.dnsOnly({ allowPrivateMx: false });
    const r = await strict.validate('alice@privmx.test');
    expect(r.result).toEqual({
      reason: 'no_mail_server',
      status: 'block_bounce_risk',
      subStatus: 'mx_private',
    });
    expect(verdictOf(await strict.validate('alice@public.test'))).toEqual(['safe', 'domain_ok']);
    expect(verdictOf(await dnsOnly.validate('alice@privmx.test'))).toEqual(['safe', 'domain_ok']);
  });
});

describe('lists, roles and typos', () => {
  it('calls a disposable domain (and its subdomains) block_bounce_risk disposable', async () => {
    const r = await dnsOnly.validate('someone@mailinator.com');
    expect(verdictOf(r)).toEqual(['block_bounce_risk', 'disposable']);
    expect(r.domain.isDisposable).toBe(true);
    expect(verdictOf(await dnsOnly.validate('x@foo.mailinator.com'))).toEqual([
      'block_bounce_risk',
      'disposable',
    ]);
  });

  it.each(['abuse', 'postmaster', 'Abuse+reports', 'security', 'noc', 'spam'])(
    'calls %s@ do_not_mail_abuse role_abuse',
    async (local) => {
      const r = await dnsOnly.validate(`${local}@example-corp.test`);
      expect(verdictOf(r)).toEqual(['do_not_mail_abuse', 'role_abuse']);
      expect(r.mailbox.isRoleAccount).toBe(true);
    },
  );

  it.each(['info', 'sales', 'Support', 'contact', 'admin'])(
    'calls %s@ some_risk role_account',
    async (local) => {
      expect(verdictOf(await dnsOnly.validate(`${local}@example-corp.test`))).toEqual([
        'some_risk',
        'role_account',
      ]);
    },
  );

  it('does not take a person for a role', async () => {
    const r = await dnsOnly.validate('alexa@example-corp.test');
    expect(verdictOf(r)).toEqual(['safe', 'domain_ok']);
    expect(r.mailbox.isRoleAccount).toBe(false);
  });

  it('suggests the provider for a typo domain that does not exist, and blocks it', async () => {
    const r = await dnsOnly.validate('jane@gmail.co');
    expect(verdictOf(r)).toEqual(['block_bounce_risk', 'no_such_domain']);
    expect(r.didYouMean).toBe('jane@gmail.com');
  });

  it('suggests, but does not block, a typo-like domain that receives mail', async () => {
    const r = await dnsOnly.validate('jane@outllook.com');
    expect(verdictOf(r)).toEqual(['safe', 'domain_ok']);
    expect(r.didYouMean).toBe('jane@outlook.com');
  });

  it('never suggests anything for a known provider', async () => {
    for (const d of ['gmail.com', 'mail.com', 'gmx.de', 'outlook.com']) {
      const r = await dnsOnly.validate(`jane@${d}`);
      expect(r.didYouMean).toBeUndefined();
      expect(r.result.status).toBe('safe');
    }
    expect((await dnsOnly.validate('jane@gmail.com')).domain.isFreeProvider).toBe(true);
  });

  it('blocks typo-squatting domains the disposable list carries, with the suggestion', async () => {
    const r = await dnsOnly.validate('jane@gmial.com');
    expect(r.result).toEqual({ reason: 'disposable', status: 'block_bounce_risk', subStatus: 'typo_domain' });
    expect(r.didYouMean).toBe('jane@gmail.com');
  });

  it('calls a known complainer do_not_mail_abuse, globally and per company', async () => {
    expect(verdictOf(await dnsOnly.validate('Angry@example-corp.test'))).toEqual([
      'do_not_mail_abuse',
      'known_complainer',
    ]);
    const acme = await dnsOnly.validate('grumpy@example-corp.test', { companyId: 'acme' });
    expect(verdictOf(acme)).toEqual(['do_not_mail_abuse', 'known_complainer']);
    expect(acme.mailbox.isKnownComplainer).toBe(true);
    const other = await dnsOnly.validate('grumpy@example-corp.test', { companyId: 'globex' });
    expect(verdictOf(other)).toEqual(['safe', 'domain_ok']);
  });

  it('calls a known-dead address dead_email when the domain is not known to reject it', async () => {
    expect(verdictOf(await dnsOnly.validate('gone@catchall.test'))).toEqual(['dead_email', 'known_dead']);
  });
});

describe('SMTP probe', () => {
  it('calls an accepted mailbox safe (accepted)', async () => {
    const r = await smtp.validate('alice@example-corp.test');
    expect(verdictOf(r)).toEqual(['safe', 'accepted']);
    expect(r.domain.isCatchAll).toBe(false);
    expect(r.mailbox.smtpProbe).toBe('accepted');
  });

  it('calls 550 5.1.1 on a non-catch-all domain mailbox_not_found (block_bounce_risk)', async () => {
    const r = await smtp.validate('nobody-here@example-corp.test');
    expect(r.result).toEqual({
      reason: 'mailbox_not_found',
      status: 'block_bounce_risk',
      subStatus: '5.1.1',
    });
  });

  it('calls a catch-all domain safe (catch_all), asking each address beside a random one', async () => {
    const before = h.smtp.rcpts.filter((r) => r.endsWith('@catchall.test')).length;
    const a = await smtp.validate('anyone@catchall.test');
    const b = await smtp.validate('someone-else@catchall.test');
    expect(verdictOf(a)).toEqual(['safe', 'catch_all']);
    expect(verdictOf(b)).toEqual(['safe', 'catch_all']);
    expect(a.domain.isCatchAll).toBe(true);
    // the domain's catch-all test once, then each address with a random one in its session (the
    // server may still refuse the address itself: docs/validation.md)
    const asked = h.smtp.rcpts.filter((r) => r.endsWith('@catchall.test')).slice(before);
    expect(asked.filter((r) => r.startsWith('mailvet-probe-'))).toHaveLength(3);
    expect(asked.filter((r) => !r.startsWith('mailvet-probe-'))).toEqual([
      'anyone@catchall.test',
      'someone-else@catchall.test',
    ]);
  });

  it('calls a known-dead mailbox on a catch-all domain dead_email', async () => {
    expect(verdictOf(await smtp.validate('former.employee@catchall.test'))).toEqual([
      'dead_email',
      'known_dead',
    ]);
    expect(verdictOf(await smtp.validate('ghost@catchall.test', { companyId: 'acme' }))).toEqual([
      'dead_email',
      'known_dead',
    ]);
  });

  it('calls a known-dead mailbox on a domain that rejects unknown mailboxes block_bounce_risk', async () => {
    expect(verdictOf(await smtp.validate('alice.old@example-corp.test'))).toEqual([
      'block_bounce_risk',
      'known_dead_non_catch_all',
    ]);
  });

  it('retries after greylisting and then accepts', async () => {
    const r = await smtp.validate('bob@greylist.test');
    expect(verdictOf(r)).toEqual(['safe', 'accepted']);
    expect(h.smtp.rcpts.filter((x) => x === 'bob@greylist.test').length).toBe(2);
  });

  it('calls greylisting that never ends some_risk greylisted', async () => {
    const r = await smtp.validate('bob@greyforever.test');
    expect(verdictOf(r)).toEqual(['some_risk', 'greylisted']);
  });

  it('calls a full mailbox some_risk mailbox_full', async () => {
    expect(verdictOf(await smtp.validate('full.box@example-corp.test'))).toEqual([
      'some_risk',
      'mailbox_full',
    ]);
  });

  it('calls a server that never speaks some_risk smtp_timeout', async () => {
    // The silent server never speaks, so a short SMTP timeout cannot race an answer.
    const r = await h.withSmtp({ smtp: { timeoutMs: 400 } }).validate('alice@silent.test');
    expect(verdictOf(r)).toEqual(['some_risk', 'smtp_timeout']);
  });

  it('keeps the DNS verdict when the server refuses us by policy (5.7.1): not invalid', async () => {
    const r = await smtp.validate('alice@policy.test');
    expect(verdictOf(r)).toEqual(['safe', 'domain_ok']);
    expect(r.mailbox.smtpProbe).toBe('blocked');
  });

  it('keeps the DNS verdict when port 25 is unreachable (blocked egress)', async () => {
    const blocked = h.withSmtp({ smtp: { port: await closedPort() } });
    const r = await blocked.validate('alice@example-corp.test');
    expect(verdictOf(r)).toEqual(['safe', 'domain_ok']);
    expect(r.domain.isCatchAll).toBeNull();
  });

  it('does not probe when the probe is off', async () => {
    const before = h.smtp.rcpts.length;
    const r = await dnsOnly.validate('nobody-here@example-corp.test');
    expect(verdictOf(r)).toEqual(['safe', 'domain_ok']);
    expect(r.mailbox.smtpProbe).toBe('off');
    expect(h.smtp.rcpts.length).toBe(before);
  });
});

describe('cache, single-flight and the bulk path', () => {
  it('shares one DNS query among concurrent lookups of one domain', async () => {
    const engine = h.dnsOnly();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => engine.validate(`user${i}@flight.test`)),
    );
    expect(results.every((r) => r.result.status === 'safe')).toBe(true);
    expect(h.dns.count('flight.test', 'MX')).toBe(1);
    await engine.validate('later@flight.test');
    expect(h.dns.count('flight.test', 'MX')).toBe(1);
  });

  it('classifies synchronously once a chunk is prepared', async () => {
    const engine = h.dnsOnly();
    const emails = [
      'a@FLIGHT2.test',
      ' b@flight2.test',
      'abuse@flight2.test',
      'x@nullmx.test',
      'bad',
      '',
      'angry@example-corp.test',
    ];
    const batch = await engine.prepare(emails);
    expect(emails.map((e) => batch.statusOf(e))).toEqual([
      'safe',
      'safe',
      'do_not_mail_abuse',
      'block_bounce_risk',
      'block_bounce_risk',
      'block_bounce_risk',
      'do_not_mail_abuse',
    ]);
    expect(h.dns.count('flight2.test', 'MX')).toBe(1);
    // the engine's own statusOf works on prepared domains, and never throws on unprepared ones
    expect(engine.statusOf('z@flight2.test')).toBe('safe');
    expect(engine.classify('z@never-prepared.test')).toMatchObject({
      status: 'some_risk',
      reason: 'domain_not_resolved',
    });
  });

  it('bounds concurrent domain lookups', async () => {
    let active = 0;
    let peak = 0;
    const slowDns = {
      resolveMx: async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
        return [{ exchange: 'mx.example.net', priority: 10 }];
      },
      resolve4: async () => ['93.184.216.34'],
      resolve6: async () => [],
    };
    const engine = new ValidationEngine({ dnsClient: slowDns, maxConcurrentLookups: 3 });
    await engine.prepareDomains(Array.from({ length: 30 }, (_, i) => `d${i}.example.net`));
    expect(peak).toBe(3);
  });

  /** A resolver whose domains all name mx.shared.example; its A answers come from `a` and are counted. */
  function sharedMxDns(a: () => Promise<string[]>) {
    const calls = { a: 0, aaaa: 0 };
    const client = {
      resolveMx: async () => [{ exchange: 'mx.shared.example', priority: 10 }],
      resolve4: () => {
        calls.a++;
        return a();
      },
      resolve6: async () => {
        calls.aaaa++;
        return [];
      },
    };
    return { client, calls };
  }

  it("looks up a shared MX host's addresses once for every domain that names it", async () => {
    const { client, calls } = sharedMxDns(async () => ['93.184.216.34']);
    const engine = new ValidationEngine({ dnsClient: client, maxConcurrentLookups: 4 });
    const domains = Array.from({ length: 20 }, (_, i) => `d${i}.example.net`);
    await engine.prepareDomains(domains);
    expect(calls).toEqual({ a: 1, aaaa: 1 });
    for (const d of domains)
      expect(engine.classify(`ann@${d}`)).toMatchObject({ status: 'safe', reason: 'domain_ok' });
    expect(engine.domainOf('ann@d7.example.net')?.mailHost).toEqual({
      host: 'mx.shared.example',
      addresses: ['93.184.216.34'],
    });
  });

  it('asks again for an MX host that did not resolve, and keeps one that did only as long as a domain', async () => {
    const answers = [
      () => Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })),
      () => Promise.resolve(['93.184.216.34']),
      () => Promise.resolve(['93.184.216.35']),
    ];
    const { client, calls } = sharedMxDns(() => answers[Math.min(calls.a - 1, 2)]!());
    let now = 0;
    const engine = new ValidationEngine({
      dnsClient: client,
      cacheTtlMs: 1000,
      clock: () => new Date(now),
    });
    expect((await engine.resolveDomain('late.example.net')).dns).toBe('dns_timeout');
    // the failed lookup was not kept: the next domain asks again and gets the address
    expect((await engine.resolveDomain('next.example.net')).mailHost?.addresses).toEqual(['93.184.216.34']);
    expect((await engine.resolveDomain('third.example.net')).mailHost?.addresses).toEqual(['93.184.216.34']);
    expect(calls.a).toBe(2);
    now = 1000; // the host's addresses expire with the domain verdicts
    expect((await engine.resolveDomain('fourth.example.net')).mailHost?.addresses).toEqual(['93.184.216.35']);
    expect(calls.a).toBe(3);
  });

  it('prepares a domain again only once its verdict has expired, or when it was never kept', async () => {
    const asked: string[] = [];
    let now = 0;
    const engine = new ValidationEngine({
      dnsClient: {
        resolveMx: async (domain) => {
          asked.push(domain);
          if (domain.startsWith('flaky')) throw Object.assign(new Error('servfail'), { code: 'ESERVFAIL' });
          return [{ exchange: 'mx.example.net', priority: 10 }];
        },
        resolve4: async () => ['93.184.216.34'],
        resolve6: async () => [],
      },
      cacheTtlMs: 1000,
      transientCacheTtlMs: 100,
      clock: () => new Date(now),
    });
    const chunk = ['ok.example.net', 'OK.example.net', 'flaky.example.net', 'bad..name', 'MAILVET.test'];
    await engine.prepareDomains(chunk);
    expect(asked).toEqual(['ok.example.net', 'flaky.example.net']);
    // still fresh: not even a cache lookup (bulk chunks ask for the same domains again and again)
    const resolve = jest.spyOn(engine, 'resolveDomain');
    now = 99;
    expect(await engine.prepareDomains(chunk, now + 1000)).toEqual(new Set());
    expect(resolve).not.toHaveBeenCalled();
    expect(asked).toHaveLength(2);
    now = 100; // the SERVFAIL's verdict has expired, the others hold
    await engine.prepareDomains(chunk);
    expect(asked.slice(2)).toEqual(['flaky.example.net']);
    now = 1100;
    await engine.prepareDomains(chunk);
    expect(asked.slice(3).sort()).toEqual(['flaky.example.net', 'ok.example.net']);
    expect(engine.classify('ann@OK.example.net')).toMatchObject({ status: 'safe', reason: 'domain_ok' });
  });

  it('only ever answers with the five statuses', async () => {
    const r = await dnsOnly.validate('alice@example-corp.test');
    expect(STATUSES).toContain(r.result.status);
  });
});
