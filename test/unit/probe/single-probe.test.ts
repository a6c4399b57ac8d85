// The single endpoint's engine with the probe stage's pieces: the verdict cache (no second probe inside
// its window), accept-all providers (never "accepted") and a failing SOCKS proxy (no evidence).
import { ValidationEngine } from '../../../functions/domain/validation';
import { MemoryProbeVerdictCache } from '../../../functions/domain/probe/verdict-cache';
import { closedPort } from '../validation/fixtures/harness';
import { startFixtureDns, type FixtureDns } from '../validation/fixtures/dns-server';
import { mailboxRule, startBatchSmtp, type BatchSmtp } from '../validation/fixtures/batch-smtp';

let dns: FixtureDns;
let smtp: BatchSmtp;

beforeAll(async () => {
  dns = await startFixtureDns({
    'mbx.test': { mx: [{ exchange: 'mx.mbx.test', priority: 10 }] },
    'mx.mbx.test': { a: ['127.0.0.1'] },
    'yahoo-hosted.test': { mx: [{ exchange: 'mta7.am0.yahoodns.net', priority: 1 }] },
    'mta7.am0.yahoodns.net': { a: ['127.0.0.1'] },
  });
  smtp = await startBatchSmtp({ rcpt: mailboxRule() });
});

afterAll(async () => {
  await smtp?.close();
  await dns?.close();
});

const engine = (extra: ConstructorParameters<typeof ValidationEngine>[0] = {}) =>
  new ValidationEngine({
    dnsServers: dns.servers,
    dnsTimeoutMs: 500,
    dnsTries: 1,
    allowPrivateMx: true,
    smtpProbe: true,
    ...extra,
    smtp: { port: smtp.port, timeoutMs: 800, greylistAttempts: 1, ...extra.smtp },
  });

describe('single endpoint probes', () => {
  it('reads a cached verdict instead of probing again, in another process too', async () => {
    const cache = new MemoryProbeVerdictCache(7 * 86400_000);
    const first = await engine({ probeCache: cache }).validate('unknown7@mbx.test');
    expect(first.result).toEqual({
      status: 'block_bounce_risk',
      reason: 'mailbox_not_found',
      subStatus: '5.1.1',
    });
    // a fresh engine (another container) with the same cache
    const again = await engine({ probeCache: cache }).validate('unknown7@mbx.test');
    // the cache keeps the outcome, not the reply: no reply decided this answer
    expect(again.result).toEqual({ ...first.result, subStatus: null });
    expect(first.mailbox.smtpReply).toEqual({
      code: 550,
      enhanced: '5.1.1',
      text: 'The email account that you tried to reach does not exist',
    });
    expect(again.mailbox.smtpReply).toBeNull();
    expect(again.mailbox.smtpProbe).toBe('not_found');
    expect(smtp.stats.rcpts.filter((r) => r === 'unknown7@mbx.test')).toHaveLength(1);
  });

  it('probes again once the cached verdict has expired', async () => {
    let now = 1_000_000;
    const cache = new MemoryProbeVerdictCache(1000, () => new Date(now));
    await engine({ probeCache: cache }).validate('kim@mbx.test');
    now += 1001;
    await engine({ probeCache: cache }).validate('kim@mbx.test');
    expect(smtp.stats.rcpts.filter((r) => r === 'kim@mbx.test')).toHaveLength(2);
  });

  it('does not report a mailbox at an accept-all provider as verified, and sends it no RCPT', async () => {
    const result = await engine().validate('lee@yahoo-hosted.test');
    expect(result.result).toEqual({ status: 'safe', reason: 'domain_ok', subStatus: 'mailbox_unverifiable' });
    expect(result.mailbox.smtpProbe).toBe('unverifiable');
    expect(result.domain.mxProvider).toBe('yahoo');
    expect(smtp.stats.rcpts.some((r) => r.endsWith('@yahoo-hosted.test'))).toBe(false);
  });

  it('keeps the DNS verdict and says proxy_failed when the SOCKS proxy fails', async () => {
    const proxy = `socks5://127.0.0.1:${await closedPort()}`;
    const result = await engine({ smtp: { socksProxy: proxy } }).validate('unknown8@mbx.test');
    expect(result.result).toEqual({ status: 'safe', reason: 'domain_ok', subStatus: null });
    expect(result.mailbox.smtpProbe).toBe('proxy_failed');
    expect(smtp.stats.rcpts).not.toContain('unknown8@mbx.test');
  });
});
