// Bulk mailbox verification end to end on the local runtime with SMTP_PROBE=true: fixture DNS and a
// fixture MX server on 127.0.0.1 (5.1.1 rejections, greylisting, full mailboxes, catch-all, a
// stalling mailbox, an accept-all provider); every row of the results file carries the status the
// single endpoint gives the same address, and progress moves while the probe stage works.
import { fixtureProbeSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';
import { mailboxRule, replies, startBatchSmtp, type BatchSmtp } from '../unit/validation/fixtures/batch-smtp';
import { BulkClient } from './bulk-client';

jest.setTimeout(240_000);

let dns: FixtureDns;
let smtp: BatchSmtp;
let runtime: TestRuntime;
let client: BulkClient;

const standard = mailboxRule();
const catchAll = mailboxRule(true);

beforeAll(async () => {
  dns = await startFixtureDns({
    'mbx.test': { mx: [{ exchange: 'mx.mbx.test', priority: 10 }] },
    'mx.mbx.test': { a: ['127.0.0.1'] },
    'other.test': { mx: [{ exchange: 'mx.other.test', priority: 10 }] },
    'mx.other.test': { a: ['127.0.0.1'] },
    'catchall.test': { mx: [{ exchange: 'mx.catchall.test', priority: 10 }] },
    'mx.catchall.test': { a: ['127.0.0.1'] },
    'stuck.test': { mx: [{ exchange: 'mx.stuck.test', priority: 10 }] },
    'mx.stuck.test': { a: ['127.0.0.1'] },
    // an accept-all provider: its MX name is Yahoo's
    'yahoo-hosted.test': { mx: [{ exchange: 'mta5.am0.yahoodns.net', priority: 1 }] },
    'mta5.am0.yahoodns.net': { a: ['127.0.0.1'] },
  });
  smtp = await startBatchSmtp({
    rcpt: (address, ctx) => {
      const domain = address.slice(address.lastIndexOf('@') + 1);
      if (domain === 'catchall.test' || domain === 'yahoo-hosted.test') return catchAll(address, ctx);
      if (domain === 'stuck.test' && address.startsWith('forever')) return replies.greylisted;
      return standard(address, ctx);
    },
  });
  runtime = await startTestRuntime({
    // no probe cache: bulk and single each really probe, so their equality is not the cache's doing
    ...fixtureProbeSettings(dns, smtp),
    PROBE_BATCH_SIZE: '3',
    PROBE_GREYLIST_RETRIES: '2',
    PROBE_GREYLIST_DELAY_SECONDS: '1',
    SMTP_RECIPIENTS_PER_SESSION: '4',
    CHUNK_SIZE_BYTES: '120',
  });
  client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
});

afterAll(async () => {
  await runtime?.stop();
  await smtp?.close();
  await dns?.close();
});

const addresses = [
  'ann@mbx.test',
  'unknown1@mbx.test',
  'grey1@mbx.test',
  'full1@mbx.test',
  'bob@mbx.test',
  'unknown2@mbx.test',
  'carol@mbx.test',
  'info@mbx.test',
  'abuse@mbx.test',
  'slow1@mbx.test',
  'dan@other.test',
  'unknown3@other.test',
  'grey2@other.test',
  'eve@catchall.test',
  'unknown4@catchall.test',
  'forever1@stuck.test',
  'fay@yahoo-hosted.test',
  'unknown5@yahoo-hosted.test',
  'nobody@nowhere.test',
  'not-an-address',
];

const expected: Record<string, string> = {
  'ann@mbx.test': 'safe',
  'unknown1@mbx.test': 'block_bounce_risk',
  'grey1@mbx.test': 'safe',
  'full1@mbx.test': 'some_risk',
  'bob@mbx.test': 'safe',
  'unknown2@mbx.test': 'block_bounce_risk',
  'carol@mbx.test': 'safe',
  'info@mbx.test': 'some_risk',
  'abuse@mbx.test': 'do_not_mail_abuse',
  'slow1@mbx.test': 'some_risk',
  'dan@other.test': 'safe',
  'unknown3@other.test': 'block_bounce_risk',
  'grey2@other.test': 'safe',
  'eve@catchall.test': 'safe',
  'unknown4@catchall.test': 'safe',
  'forever1@stuck.test': 'some_risk',
  'fay@yahoo-hosted.test': 'safe',
  'unknown5@yahoo-hosted.test': 'safe',
  'nobody@nowhere.test': 'block_bounce_risk',
  'not-an-address': 'block_bounce_risk',
};

describe('bulk probe stage', () => {
  it('gives every row the single endpoint status, probing many recipients per session', async () => {
    const csv = `email,name\n${addresses.map((a, i) => `${a},n${i}`).join('\n')}\n`;
    const result = await client.run(Buffer.from(csv), { emailColumn: 0 });
    expect(result.final.status).toBe('completed');
    const lines = result.file!.toString('utf8').trim().split('\n').slice(1);
    const bulk = Object.fromEntries(lines.map((l) => [l.split(',')[0]!, l.split(',')[2]!]));
    expect(bulk).toEqual(expected);
    expect(result.final.totalEmails).toBe(addresses.length);

    // progress moved between 0 and 100 while probing (greylist retries wait at least a second)
    const percents = result.seen.map((b) => b.percentComplete);
    expect(percents.some((p) => p > 0 && p < 100)).toBe(true);

    // one session carried several recipients; the accept-all provider got no mailbox probe; a
    // catch-all domain's users are asked too (the server may refuse one explicitly: docs/validation.md)
    expect(Math.max(...smtp.stats.rcptsPerSession)).toBeGreaterThan(1);
    expect(smtp.stats.rcpts).not.toContain('fay@yahoo-hosted.test');
    expect(smtp.stats.rcpts).toContain('eve@catchall.test');
    // a probed address was asked once per attempt, never twice in one attempt
    expect(smtp.stats.rcpts.filter((r) => r === 'ann@mbx.test')).toHaveLength(1);

    // the single endpoint agrees address by address (reason and status)
    for (const address of addresses) {
      const res = await client.request('POST', '/v1/email/validate', { email: address });
      const body = (await res.json()) as {
        result: { status: string; reason: string; subStatus: string | null };
      };
      expect([address, body.result.status]).toEqual([address, bulk[address]]);
      if (address === 'fay@yahoo-hosted.test')
        expect(body.result).toEqual({
          status: 'safe',
          reason: 'domain_ok',
          subStatus: 'mailbox_unverifiable',
        });
      if (address === 'unknown1@mbx.test')
        expect(body.result).toEqual({
          status: 'block_bounce_risk',
          reason: 'mailbox_not_found',
          subStatus: '5.1.1',
        });
    }
  });

  it('never steps progress back while chunks hand rows to probing, and moves it during probing', async () => {
    // many small chunks (CHUNK_SIZE_BYTES above): the first ones need no probe and finish at once, the
    // later ones hand rows to the probe stage afterwards (the old bar stepped back then)
    const decided = Array.from({ length: 200 }, (_, i) => `nobody${i}@nowhere.test`);
    const csv = `email\n${[...decided, ...addresses].join('\n')}\n`;
    const { jobId, uploadUrl } = await client.create({ emailColumn: 0 });
    expect((await client.upload(uploadUrl, Buffer.from(csv))).status).toBe(200);
    const seen = await client.waitForEnd(jobId, 120_000, 40);
    expect(seen[seen.length - 1]!.status).toBe('completed');
    const percents = seen.map((b) => b.percentComplete);
    const stepBack = percents.findIndex((p, i) => i > 0 && p < percents[i - 1]!);
    expect({ stepBack, percents }).toEqual({ stepBack: -1, percents });
    // greylisted rows wait at least a second in the probe stage: the bar shows values in between
    expect(new Set(percents.filter((p) => p > 0 && p < 100)).size).toBeGreaterThan(1);
  });
});
