// A bulk chunk's DNS deadline: against a name server that never answers (and a resolver timeout far
// longer than the deadline), prepare stops waiting at the deadline and the late domain's addresses read
// some_risk / dns_timeout, while domains that answered keep their verdicts and nothing late is cached.
import { Resolver } from 'node:dns/promises';
import { chunkClassifier } from '../../../functions/domain/bulk/classifier';
import { ValidationEngine } from '../../../functions/domain/validation';
import { startFixtureDns, type FixtureDns } from './fixtures/dns-server';

let dns: FixtureDns;
let resolver: Resolver;
let engine: ValidationEngine;

beforeAll(async () => {
  dns = await startFixtureDns({
    'ok.test': { mx: [{ exchange: 'mx.ok.test', priority: 10 }] },
    'mx.ok.test': { a: ['127.0.0.1'] },
    'slow.test': { behaviour: 'silent' },
  });
  // the resolver alone would wait 30 s for slow.test: only the deadline can end these tests in time
  resolver = new Resolver({ timeout: 30_000, tries: 1 });
  resolver.setServers(dns.servers);
  engine = new ValidationEngine({ dnsClient: resolver, allowPrivateMx: true });
});

afterAll(async () => {
  // the late lookups are still waiting for their answer
  resolver.cancel();
  await dns.close();
});

describe('prepare with a deadline', () => {
  it('reads a domain whose name server never answers as some_risk / dns_timeout at the deadline', async () => {
    const emails = ['ann@ok.test', 'bob@slow.test', 'abuse@slow.test', 'not an address'];
    const started = Date.now();
    const batch = await engine.prepare(emails, { deadlineMs: started + 300 });
    const waited = Date.now() - started;

    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(5_000);
    expect(batch.verdictAt(0)).toMatchObject({ status: 'safe', reason: 'domain_ok' });
    expect(batch.verdictAt(1)).toEqual({ status: 'some_risk', reason: 'dns_timeout', subStatus: 'deadline' });
    // what the local part alone decides still holds, as with any resolver timeout
    expect(batch.verdictAt(2)).toMatchObject({ status: 'do_not_mail_abuse', reason: 'role_abuse' });
    expect(batch.verdictAt(3).status).toBe('block_bounce_risk');
    expect(batch.classify('bob@slow.test').reason).toBe('dns_timeout');
    // nothing to probe at a domain nobody resolved, and the late verdict is not cached as the domain's
    expect(batch.probeNeed('bob@slow.test')).toBeNull();
    expect(engine.domainOf('bob@slow.test')).toBeUndefined();
    expect(dns.count('slow.test', 'MX')).toBeGreaterThanOrEqual(1);
  });

  it('waits for every domain without a deadline, and has no late domain when all answered in time', async () => {
    const batch = await engine.prepare(['ann@ok.test'], { deadlineMs: Date.now() + 10_000 });
    expect(batch.verdictAt(0)).toMatchObject({ status: 'safe', reason: 'domain_ok' });
    expect(await engine.prepareDomains(['ok.test'])).toEqual(new Set());
  });

  it('gives the bulk classifier a deadline already past: no wait, every uncached domain late', async () => {
    const classify = chunkClassifier(() => engine);
    const started = Date.now();
    const out = await classify(['eve@slow.test', 'ann@ok.test'], 'company', undefined, started - 1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(out.verdicts[0]).toMatchObject({ status: 'some_risk', reason: 'dns_timeout' });
    // ok.test was resolved by the first test and is cached: it needs no wait
    expect(out.verdicts[1]).toMatchObject({ status: 'safe', reason: 'domain_ok' });
    expect(out.probes).toEqual([]);
  });
});
