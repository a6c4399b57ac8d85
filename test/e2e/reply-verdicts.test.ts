// Real mail servers' replies end to end on the local runtime with SMTP_PROBE=true: a scripted SMTP
// server on loopback sends replies from test/fixtures/smtp-replies.ts (at RCPT, at MAIL FROM and at
// the greeting, multi-line as sent), and both POST /v1/email/validate and a probed bulk job give the
// verdicts they mean, the bulk job's mailvet_reason column included.
import { fixtureProbeSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { SMTP_REPLIES } from '../fixtures/smtp-replies';
import { startFixtureDns, type FixtureDns, type Zones } from '../unit/validation/fixtures/dns-server';
import { startScriptedSmtp, type ScriptedSmtp } from '../unit/validation/fixtures/scripted-smtp';
import { BulkClient } from './bulk-client';

jest.setTimeout(240_000);

/** A reply of the collection by a piece of its text (fails loudly when the collection changes). */
function reply(piece: string): string {
  const found = SMTP_REPLIES.filter((c) => c.reply.includes(piece));
  if (found.length === 0) throw new Error(`no reply with "${piece}" in the collection`);
  return found[0]!.reply;
}

/** RCPT replies by local part at replies.test. */
const RCPT: Record<string, string> = {
  m365: reply('Recipient address rejected: Access denied [NEKOCHAN'),
  nosuchuser: reply('550 5.7.1 No such user!'),
  aliastable: reply(
    '450 4.1.1 <kijitora@example.org>: Recipient address rejected: User unknown in virtual alias',
  ),
  disabled: reply('550-5.2.1 The email account that you tried to reach is disabled'),
  frozen: reply('Mailbox is frozen'),
  full: reply('user is over quota'),
  spamhaus: reply('is blacklisted using SPAMHAUS-XBL'),
  toomany: reply('550 Too many invalid recipients'),
  perhour: reply('has sent to too many recipients this hour'),
  receivingrate: reply('550-5.2.1 The user you are trying to contact is receiving mail at a rate'),
  greylisted: reply('422 4.2.2 Greylisted'),
};

let dns: FixtureDns;
let smtp: ScriptedSmtp;
let runtime: TestRuntime;
let client: BulkClient;

beforeAll(async () => {
  const zones: Zones = {
    'replies.test': { mx: [{ exchange: 'mx.replies.test', priority: 10 }] },
    'mx.replies.test': { a: ['127.0.0.1'] },
    'greeting554.test': { mx: [{ exchange: 'mx.greeting554.test', priority: 10 }] },
    'mx.greeting554.test': { a: ['127.0.30.1'] },
    'mailfrom.test': { mx: [{ exchange: 'mx.mailfrom.test', priority: 10 }] },
    'mx.mailfrom.test': { a: ['127.0.30.2'] },
  };
  dns = await startFixtureDns(zones);
  smtp = await startScriptedSmtp({
    hosts: [
      {
        address: '127.0.30.1',
        greeting: reply('Nemesis ESMTP Service not available\n554-No SMTP service\n554-IP'),
      },
      { address: '127.0.30.2', mailFrom: reply('AUP#CDRBL') },
    ],
    rcpt: (address) => {
      const local = address.slice(0, address.lastIndexOf('@'));
      if (local.startsWith('mailvet-probe-'))
        return `550 5.1.1 <${address}>: Recipient address rejected: User unknown in local recipient table`;
      return RCPT[local];
    },
  });
  runtime = await startTestRuntime({
    ...fixtureProbeSettings(dns, smtp),
    // a temporary answer settles at once in bulk (the retry rounds are tested in bulk-probe.test.ts)
    PROBE_GREYLIST_RETRIES: '0',
    PROBE_GREYLIST_DELAY_SECONDS: '1',
  });
  client = new BulkClient(runtime.baseUrl, runtime.keys.admin);
});

afterAll(async () => {
  await runtime?.stop();
  await smtp?.close();
  await dns?.close();
});

/** address -> [status, reason, subStatus] through POST /v1/email/validate. */
const single: Record<string, [string, string, string | null]> = {
  'm365@replies.test': ['block_bounce_risk', 'mailbox_not_found', '5.4.1'],
  'nosuchuser@replies.test': ['block_bounce_risk', 'mailbox_not_found', '5.7.1'],
  'aliastable@replies.test': ['block_bounce_risk', 'mailbox_not_found', '4.1.1'],
  'disabled@replies.test': ['block_bounce_risk', 'mailbox_disabled', '5.2.1'],
  'frozen@replies.test': ['block_bounce_risk', 'mailbox_disabled', '550'],
  'full@replies.test': ['some_risk', 'mailbox_full', '5.2.2'],
  'spamhaus@replies.test': ['safe', 'domain_ok', null],
  'toomany@replies.test': ['safe', 'domain_ok', null],
  'kim@greeting554.test': ['safe', 'domain_ok', null],
  'kim@mailfrom.test': ['safe', 'domain_ok', null],
};

/** address -> [status, reason] in the bulk results file (temporary answers included: no retries). */
const bulk: Record<string, [string, string]> = {
  ...Object.fromEntries(Object.entries(single).map(([a, [s, r]]) => [a, [s, r]])),
  'perhour@replies.test': ['some_risk', 'greylisted'],
  'receivingrate@replies.test': ['some_risk', 'greylisted'],
  'greylisted@replies.test': ['some_risk', 'greylisted'],
};

interface Body {
  result: { status: string; reason: string; subStatus: string | null };
  mailbox: { smtpProbe: string; smtpReply: { code: number; enhanced: string | null; text: string } | null };
}

describe('what real servers answer, end to end', () => {
  it('POST /v1/email/validate gives each reply its verdict, the server code and the reply', async () => {
    const got: Record<string, unknown> = {};
    for (const address of Object.keys(single)) {
      const res = await client.request('POST', '/v1/email/validate', { email: address });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Body;
      got[address] = [body.result.status, body.result.reason, body.result.subStatus];
      if (address === 'disabled@replies.test')
        expect(body.mailbox.smtpReply).toEqual({
          code: 550,
          enhanced: '5.2.1',
          text: 'The email account that you tried to reach is disabled. Learn more at https://support.google.com/mail/?p=DisabledUser 000000000000eee.000 - gsmtp',
        });
      if (address === 'kim@greeting554.test') {
        expect(body.mailbox.smtpProbe).toBe('blocked');
        expect(body.mailbox.smtpReply).toMatchObject({ code: 554, enhanced: null });
        expect(body.mailbox.smtpReply?.text).toMatch(/^mail\.com \(mxgmxus002\)|^gmx\.net/);
      }
      if (address === 'kim@mailfrom.test') {
        expect(body.mailbox.smtpProbe).toBe('blocked');
        expect(body.mailbox.smtpReply).toMatchObject({ code: 550, enhanced: '5.1.0' });
      }
    }
    expect(got).toEqual(single);
  });

  it('a probed bulk job gives the same verdicts, and mailvet_reason carries the reason', async () => {
    const addresses = Object.keys(bulk);
    const csv = `email\n${addresses.join('\n')}\n`;
    const result = await client.run(Buffer.from(csv), { emailColumn: 0 });
    expect(result.final.status).toBe('completed');
    const res = await client.request(
      'GET',
      `/v1/email/validate-file/${result.jobId}/download?columns=status,reason`,
    );
    expect(res.status).toBe(200);
    const { downloadUrl } = (await res.json()) as { downloadUrl: string };
    const text = await (await fetch(downloadUrl)).text();
    const lines = text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('email,mailvet_status,mailvet_reason');
    const rows = Object.fromEntries(
      lines.slice(1).map((l) => {
        const [email, status, reason] = l.split(',');
        return [email!, [status!, reason!]];
      }),
    );
    expect(rows).toEqual(bulk);
    // every RCPT address of the file reached the server
    for (const local of Object.keys(RCPT)) expect(smtp.rcpts).toContain(`${local}@replies.test`);
  });
});
