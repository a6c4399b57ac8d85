// The DNS canary check: a resolver that answers NXDOMAIN for every name never turns a domain into
// block_bounce_risk; one that serves the canaries still does; syntax, disposable and role verdicts stand.
import { DnsHealth } from '../../../functions/domain/validation/dns-health';
import { ValidationEngine } from '../../../functions/domain/validation';
import type { DnsClient } from '../../../functions/domain/validation';
import { fixtureCanaryDomain, startFixtureDns, type FixtureDns } from './fixtures/dns-server';

let broken: FixtureDns;
let working: FixtureDns;

beforeAll(async () => {
  // a filtered network's resolver: NXDOMAIN for every name, the canary included
  broken = await startFixtureDns({}, { withoutCanary: true });
  working = await startFixtureDns({
    'nullmx.test': { mx: [{ exchange: '.', priority: 0 }] },
    'ok.test': { mx: [{ exchange: 'mx.ok.test', priority: 10 }] },
    'mx.ok.test': { a: ['127.0.0.1'] },
  });
});

afterAll(async () => {
  await broken?.close();
  await working?.close();
});

const engineOn = (dns: FixtureDns, canaries: string[] = [fixtureCanaryDomain]) =>
  new ValidationEngine({
    dnsServers: dns.servers,
    dnsTimeoutMs: 1000,
    dnsTries: 1,
    allowPrivateMx: true,
    dnsCanaries: canaries,
  });

describe('a resolver that answers NXDOMAIN for every name', () => {
  it('reads a domain it calls non-existent as some_risk / dns_unavailable', async () => {
    const result = await engineOn(broken).validate('someone@gmail.com');
    expect(result.result).toEqual({
      status: 'some_risk',
      reason: 'dns_unavailable',
      subStatus: 'no_such_domain',
    });
    expect(result.domain.hasMailServer).toBeNull();
  });

  it('keeps the role, disposable and syntax verdicts', async () => {
    const engine = engineOn(broken);
    expect((await engine.validate('abuse@gmail.com')).result.status).toBe('do_not_mail_abuse');
    expect((await engine.validate('someone@mailinator.com')).result).toMatchObject({
      status: 'block_bounce_risk',
      reason: 'disposable',
    });
    expect((await engine.validate('a..b@gmail.com')).result).toMatchObject({
      status: 'block_bounce_risk',
      reason: 'invalid_syntax',
    });
    expect((await engine.validate('info@gmail.com')).result.status).toBe('some_risk');
  });

  it('gives the bulk path the same verdict', async () => {
    const batch = await engineOn(broken).prepare(['someone@gmail.com', 'abuse@gmail.com']);
    expect(batch.verdictAt(0)).toMatchObject({ status: 'some_risk', reason: 'dns_unavailable' });
    expect(batch.verdictAt(1).status).toBe('do_not_mail_abuse');
  });

  it('caches no domain verdict while broken: the same domain is asked again', async () => {
    const engine = engineOn(broken);
    await engine.validate('a@nowhere.test');
    await engine.validate('b@nowhere.test');
    expect(broken.count('nowhere.test', 'MX')).toBeGreaterThanOrEqual(2);
  });

  it('says no_such_domain with the check off (empty DNS_CANARY_DOMAINS)', async () => {
    const result = await engineOn(broken, []).validate('someone@gmail.com');
    expect(result.result).toMatchObject({ status: 'block_bounce_risk', reason: 'no_such_domain' });
  });
});

describe('a resolver that serves the canary names', () => {
  it('still calls a non-existent domain no_such_domain, and a null MX null_mx', async () => {
    const engine = engineOn(working);
    expect((await engine.validate('someone@nowhere.test')).result).toMatchObject({
      status: 'block_bounce_risk',
      reason: 'no_such_domain',
    });
    expect((await engine.validate('someone@nullmx.test')).result).toMatchObject({
      status: 'block_bounce_risk',
      reason: 'null_mx',
    });
    expect((await engine.validate('someone@ok.test')).result.status).toBe('safe');
  });

  it('asks the canary only when an answer is negative, and at most every 30 s', async () => {
    const engine = engineOn(working);
    const before = working.count(fixtureCanaryDomain, 'MX');
    await engine.validate('someone@ok.test');
    expect(working.count(fixtureCanaryDomain, 'MX')).toBe(before);
    await engine.validate('someone@gone1.test');
    await engine.validate('someone@gone2.test');
    expect(working.count(fixtureCanaryDomain, 'MX')).toBe(before + 1);
  });
});

describe('DnsHealth', () => {
  const fakeDns = (answers: { ok: boolean }): DnsClient & { asked: number } => {
    const client = {
      asked: 0,
      resolveMx: async () => {
        client.asked++;
        if (answers.ok) return [{ exchange: 'mx.example', priority: 10 }];
        throw Object.assign(new Error('queryMx ENOTFOUND'), { code: 'ENOTFOUND' });
      },
      resolve4: async () => [],
      resolve6: async () => [],
    };
    return client;
  };

  it('re-checks at most every 30 s, and tells the change once each way', async () => {
    const answers = { ok: false };
    const dns = fakeDns(answers);
    let now = 0;
    const events = { broken: 0, healed: 0, brokenChecks: 0 };
    const health = new DnsHealth(
      dns,
      ['canary.example'],
      {
        onBroken: () => events.broken++,
        onHealed: () => events.healed++,
        onBrokenCheck: () => events.brokenChecks++,
      },
      () => new Date(now),
    );
    expect(await health.isBroken()).toBe(true);
    now = 29_999;
    expect(await health.isBroken()).toBe(true);
    expect(dns.asked).toBe(1);
    now = 30_000;
    expect(await health.isBroken()).toBe(true);
    expect(dns.asked).toBe(2);
    answers.ok = true;
    now = 45_000;
    expect(await health.isBroken()).toBe(true); // still within 30 s of the last check
    now = 60_000;
    expect(await health.isBroken()).toBe(false);
    expect(events).toEqual({ broken: 1, healed: 1, brokenChecks: 2 });
  });

  it('shares one check between concurrent callers', async () => {
    const dns = fakeDns({ ok: true });
    const health = new DnsHealth(dns, ['a.example', 'b.example']);
    await Promise.all([health.isBroken(), health.isBroken(), health.isBroken()]);
    expect(dns.asked).toBe(2);
  });

  it('is never broken with the check off', async () => {
    const dns = fakeDns({ ok: false });
    expect(await new DnsHealth(dns, []).isBroken()).toBe(false);
    expect(dns.asked).toBe(0);
  });
});
