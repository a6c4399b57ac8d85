// The batch SMTP client against scriptable fixture servers on 127.0.0.1: one session for many
// recipients, pipelined or not, envelope and session limits, drops, stalls, proxies and hand-back.
import {
  defaultBatchSessionOptions,
  probeBatch,
  type BatchSessionOptions,
} from '../../../functions/domain/probe/smtp-session';
import { ProxyPool } from '../../../functions/domain/probe/proxy-pool';
import { closedPort } from '../validation/fixtures/harness';
import { mailboxRule, startBatchSmtp, type BatchSmtp } from '../validation/fixtures/batch-smtp';

const servers: BatchSmtp[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(options: Partial<Parameters<typeof startBatchSmtp>[0]> = {}): Promise<BatchSmtp> {
  const s = await startBatchSmtp({ rcpt: mailboxRule(), ...options });
  servers.push(s);
  return s;
}

const opts = (port: number, extra: Partial<BatchSessionOptions> = {}): BatchSessionOptions => ({
  ...defaultBatchSessionOptions,
  port,
  timeoutMs: 1500,
  proxies: null,
  ...extra,
});

const mixed = ['ann@x.test', 'unknown1@x.test', 'grey1@x.test', 'full1@x.test', 'bob@x.test'];
const expected = {
  'ann@x.test': 'accepted',
  'unknown1@x.test': 'not_found',
  'grey1@x.test': 'greylisted',
  'full1@x.test': 'full',
  'bob@x.test': 'accepted',
};

describe('probeBatch', () => {
  it('probes many recipients in one pipelined session with the single endpoint classification', async () => {
    const s = await server();
    const out = await probeBatch(['127.0.0.1'], mixed, opts(s.port));
    expect(Object.fromEntries(out.outcomes)).toEqual(expected);
    expect(out.unfinished).toEqual([]);
    expect(out.pipelining).toBe(true);
    expect(s.stats.sessions).toBe(1);
    expect(s.stats.rcpts).toEqual(mixed);
  });

  it('sends one RCPT at a time to a server without PIPELINING, with the same outcomes', async () => {
    const s = await server({ pipelining: false });
    const out = await probeBatch(['127.0.0.1'], mixed, opts(s.port));
    expect(Object.fromEntries(out.outcomes)).toEqual(expected);
    expect(out.pipelining).toBe(false);
    expect(s.stats.sessions).toBe(1);
  });

  it('opens a new session after the recipients-per-session limit', async () => {
    const s = await server();
    const rcpts = Array.from({ length: 25 }, (_, i) => `user${i}@x.test`);
    const out = await probeBatch(['127.0.0.1'], rcpts, opts(s.port, { maxRecipientsPerSession: 10 }));
    expect(out.outcomes.size).toBe(25);
    expect(out.sessions).toBe(3);
    expect(s.stats.rcptsPerSession).toEqual([10, 10, 5]);
  });

  it('starts a new envelope (RSET, MAIL FROM) when the server says too many recipients', async () => {
    const s = await server({ maxRecipientsPerEnvelope: 4 });
    const rcpts = Array.from({ length: 10 }, (_, i) => `user${i}@x.test`);
    const out = await probeBatch(['127.0.0.1'], rcpts, opts(s.port));
    expect([...out.outcomes.values()]).toEqual(Array(10).fill('accepted'));
    expect(s.stats.sessions).toBe(1);
    expect(s.stats.rcpts.filter((r) => r === 'user0@x.test')).toHaveLength(1);
  });

  it('costs only a reconnect when the server drops the session mid-batch', async () => {
    const s = await server();
    const rcpts = ['a@x.test', 'b@x.test', 'drop1@x.test', 'c@x.test', 'unknown2@x.test'];
    const out = await probeBatch(['127.0.0.1'], rcpts, opts(s.port));
    expect(Object.fromEntries(out.outcomes)).toEqual({
      'a@x.test': 'accepted',
      'b@x.test': 'accepted',
      'drop1@x.test': 'accepted',
      'c@x.test': 'accepted',
      'unknown2@x.test': 'not_found',
    });
    expect(s.stats.sessions).toBe(2);
    // answers received before the drop are kept, not asked again
    expect(s.stats.rcpts.filter((r) => r === 'a@x.test')).toHaveLength(1);
    expect(s.stats.rcpts.filter((r) => r === 'b@x.test')).toHaveLength(1);
  });

  it('gives the rest up as unreachable after the reconnect limit', async () => {
    const s = await server({ rcpt: () => 'drop' });
    const out = await probeBatch(['127.0.0.1'], ['a@x.test', 'b@x.test'], opts(s.port, { maxReconnects: 1 }));
    expect(Object.fromEntries(out.outcomes)).toEqual({
      'a@x.test': 'unreachable',
      'b@x.test': 'unreachable',
    });
    expect(s.stats.sessions).toBe(2);
  });

  it('marks a recipient the server stalls on past the step timeout, and goes on with the rest', async () => {
    const s = await server();
    const out = await probeBatch(
      ['127.0.0.1'],
      ['a@x.test', 'slow1@x.test', 'unknown3@x.test'],
      opts(s.port, { timeoutMs: 300 }),
    );
    expect(Object.fromEntries(out.outcomes)).toEqual({
      'a@x.test': 'accepted',
      'slow1@x.test': 'timeout',
      'unknown3@x.test': 'not_found',
    });
    expect(s.stats.sessions).toBe(2);
  });

  it('times a whole batch out when the greeting never comes', async () => {
    const s = await server({ delayMs: 2000 });
    const out = await probeBatch(['127.0.0.1'], ['a@x.test', 'b@x.test'], opts(s.port, { timeoutMs: 200 }));
    expect([...out.outcomes.values()]).toEqual(['timeout', 'timeout']);
  });

  it('reports unreachable when nothing listens', async () => {
    const out = await probeBatch(['127.0.0.1'], ['a@x.test'], opts(await closedPort()));
    expect(out.outcomes.get('a@x.test')).toBe('unreachable');
  });

  it('says proxy_failed (not evidence about the mailbox) when the SOCKS proxy fails, and counts it', async () => {
    const dead = `socks5://127.0.0.1:${await closedPort()}`;
    const pool = ProxyPool.parse(dead)!;
    const s = await server();
    const out = await probeBatch(['127.0.0.1'], ['a@x.test', 'b@x.test'], opts(s.port, { proxies: pool }));
    expect([...out.outcomes.values()]).toEqual(['proxy_failed', 'proxy_failed']);
    expect(pool.snapshot()[0]?.failures).toBe(1);
    expect(s.stats.sessions).toBe(0);
  });

  it('hands back what the RCPT allowance or the deadline did not let it try', async () => {
    const s = await server();
    const rcpts = Array.from({ length: 12 }, (_, i) => `user${i}@x.test`);
    let granted = 0;
    const out = await probeBatch(['127.0.0.1'], rcpts, opts(s.port, { pipelineWindow: 5 }), {
      rcptWindow: async (wanted, send) => {
        const n = Math.min(wanted, 7 - granted);
        granted += n;
        if (n > 0) send(n);
      },
    });
    expect(out.outcomes.size).toBe(7);
    expect(out.unfinished).toEqual(rcpts.slice(7));
    expect(s.stats.rcpts).toHaveLength(7);

    const stopped = await probeBatch(['127.0.0.1'], rcpts, opts(s.port), { shouldStop: () => true });
    expect(stopped.outcomes.size).toBe(0);
    expect(stopped.unfinished).toEqual(rcpts);
  });
});

describe('ProxyPool', () => {
  it('hands proxies out round-robin and benches one after two failures in a row', () => {
    let now = 0;
    const pool = ProxyPool.parse('socks5://a:1, socks5://b:2,socks5://c:3', 1000, () => new Date(now))!;
    expect([pool.pick(), pool.pick(), pool.pick(), pool.pick()]).toEqual([
      'socks5://a:1',
      'socks5://b:2',
      'socks5://c:3',
      'socks5://a:1',
    ]);
    pool.failed('socks5://b:2');
    expect(pool.pick()).toBe('socks5://b:2'); // one failure: still in turn
    pool.failed('socks5://b:2');
    expect([pool.pick(), pool.pick(), pool.pick()]).toEqual(['socks5://c:3', 'socks5://a:1', 'socks5://c:3']);
    now = 1001;
    expect([pool.pick(), pool.pick()]).toEqual(['socks5://a:1', 'socks5://b:2']);
    expect(pool.snapshot().find((p) => p.url === 'socks5://b:2')?.failures).toBe(2);
  });

  it('rejects a setting that is not a list of socks5 URLs, naming the entry', () => {
    expect(() => ProxyPool.parse('socks5://a:1,http://b:2')).toThrow(/entry 2 is not a socks5/);
    expect(() => ProxyPool.parse('nonsense')).toThrow(/entry 1 is not a URL/);
    // An entry may carry a password: the message names its position, never its text.
    let message = '';
    try {
      ProxyPool.parse('http://user:s3cret@b:2');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('SMTP_SOCKS_PROXY: entry 1 is not a socks5:// URL');
    expect(ProxyPool.parse(' , ')).toBeNull();
  });
});

describe('sessions that adapt to the host', () => {
  /** Exim's default ACL in small: past 4 RCPT with fewer than half accepted, every RCPT is refused. */
  const eximLike = () => {
    const failures = new Map<number, number>();
    return (address: string, ctx: { sessionRcpts: number; session: number }) => {
      const bad = failures.get(ctx.session) ?? 0;
      if (ctx.sessionRcpts >= 4 && ctx.sessionRcpts - bad < (ctx.sessionRcpts + 1) / 2)
        return '550 Rejected for too many bad recipients';
      if (address.startsWith('unknown')) {
        failures.set(ctx.session, bad + 1);
        return '550 5.1.1 Unrouteable address';
      }
      return '250 Accepted';
    };
  };

  it('ends a session refused as a whole and asks the rest in new ones with fewer RCPT', async () => {
    const s = await server({ rcpt: eximLike() });
    const rcpts = [...Array.from({ length: 10 }, (_, i) => `unknown${i}@x.test`), 'ann@x.test', 'bob@x.test'];
    const out = await probeBatch(['127.0.0.1'], rcpts, opts(s.port));
    expect(Object.fromEntries(out.outcomes)).toEqual(
      Object.fromEntries(rcpts.map((r) => [r, r.startsWith('unknown') ? 'not_found' : 'accepted'])),
    );
    // the refusal came after 4 refused RCPT: no session carries more from then on
    expect(out.learned).toEqual({ rcptPerSession: 4 });
    expect(s.stats.rcptsPerSession.slice(1).every((n) => n <= 4)).toBe(true);
    expect(out.sessions).toBeGreaterThan(1);
  });

  it('ends a session on "421 too many errors" without counting it as a drop', async () => {
    const s = await server({
      rcpt: (address, { sessionRcpts }) =>
        sessionRcpts >= 3 ? '421 4.7.0 mx.x.test Error: too many errors' : '550 5.1.1 User unknown',
    });
    const rcpts = Array.from({ length: 9 }, (_, i) => `unknown${i}@x.test`);
    const out = await probeBatch(['127.0.0.1'], rcpts, opts(s.port, { maxReconnects: 0 }));
    expect([...out.outcomes.values()]).toEqual(Array(9).fill('not_found'));
    expect(out.learned).toEqual({ rcptPerSession: 3 });
    expect(s.stats.sessions).toBe(3);
  });

  it('reads a first RCPT refused "too many bad recipients" as usual (about us): no session loop', async () => {
    const s = await server({ rcpt: () => '550 Too many invalid recipients' });
    const out = await probeBatch(['127.0.0.1'], ['ann@x.test', 'bob@x.test'], opts(s.port));
    expect(out.outcomes.get('ann@x.test')).toBe('blocked');
    expect(out.sessions).toBeLessThanOrEqual(2);
  });
});
