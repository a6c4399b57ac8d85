// The collection of real SMTP replies (test/fixtures/smtp-replies.ts), each read by the classifier and
// each sent by a scripted server at its stage (greeting, MAIL FROM, RCPT TO; multi-line replies line
// by line) to the whole single-email validation: DNS, catch-all test, session, classifier, verdict.
import { ValidationEngine } from '../../../functions/domain/validation';
import { parseReply, readReply } from '../../../functions/domain/validation/smtp-reply';
import type { ValidationResult } from '../../../functions/domain/validation/types';
import { SMTP_REPLIES, type ReplyCase } from '../../fixtures/smtp-replies';
import { startFixtureDns, type FixtureDns, type Zones } from '../validation/fixtures/dns-server';
import { startScriptedSmtp, type ScriptedSmtp } from '../validation/fixtures/scripted-smtp';

/** The verdict each meaning gives a mailbox on a domain that is not catch-all. */
const VERDICT = {
  not_found: { status: 'block_bounce_risk', reason: 'mailbox_not_found', smtpProbe: 'not_found' },
  disabled: { status: 'block_bounce_risk', reason: 'mailbox_disabled', smtpProbe: 'disabled' },
  full: { status: 'some_risk', reason: 'mailbox_full', smtpProbe: 'full' },
  temporary: { status: 'some_risk', reason: 'greylisted', smtpProbe: 'greylisted' },
  about_us: { status: 'safe', reason: 'domain_ok', smtpProbe: 'blocked' },
  accepted: { status: 'safe', reason: 'accepted', smtpProbe: 'accepted' },
} as const;

const cases = SMTP_REPLIES.map((c, i) => ({ ...c, i }));
const hostAddress = (i: number) => `127.0.${20 + Math.floor(i / 250)}.${1 + (i % 250)}`;
/** RCPT cases share replies.test (the local part picks the reply); the others get a host each. */
const emailOf = (c: ReplyCase & { i: number }) =>
  c.stage === 'rcpt' ? `case${c.i}@replies.test` : `someone@s${c.i}.replies.test`;

let dns: FixtureDns;
let smtp: ScriptedSmtp;
let engine: ValidationEngine;

beforeAll(async () => {
  const zones: Zones = {
    'replies.test': { mx: [{ exchange: 'mx.replies.test', priority: 10 }] },
    'mx.replies.test': { a: ['127.0.0.1'] },
  };
  for (const c of cases.filter((x) => x.stage !== 'rcpt')) {
    zones[`s${c.i}.replies.test`] = { mx: [{ exchange: `mx.s${c.i}.replies.test`, priority: 10 }] };
    zones[`mx.s${c.i}.replies.test`] = { a: [hostAddress(c.i)] };
  }
  dns = await startFixtureDns(zones);
  const byLocal = new Map(cases.filter((c) => c.stage === 'rcpt').map((c) => [`case${c.i}`, c.reply]));
  smtp = await startScriptedSmtp({
    hosts: cases
      .filter((c) => c.stage !== 'rcpt')
      .map((c) => ({
        address: hostAddress(c.i),
        ...(c.stage === 'greeting' ? { greeting: c.reply } : { mailFrom: c.reply }),
      })),
    rcpt: (address) => {
      const local = address.slice(0, address.lastIndexOf('@'));
      // the catch-all test's random mailbox does not exist here
      if (local.startsWith('mailvet-probe-'))
        return `550 5.1.1 <${address}>: Recipient address rejected: User unknown in local recipient table`;
      return byLocal.get(local);
    },
  });
  engine = new ValidationEngine({
    dnsServers: dns.servers,
    dnsTimeoutMs: 10_000,
    dnsTries: 1,
    allowPrivateMx: true,
    smtpProbe: true,
    // one attempt: a temporary answer is final here (the retry itself is tested elsewhere)
    smtp: { port: smtp.port, timeoutMs: 10_000, greylistAttempts: 1, greylistDelayMs: 10 },
  });
});

afterAll(async () => {
  await smtp?.close();
  await dns?.close();
});

describe('real SMTP replies', () => {
  it('holds at least 150 replies, each with its source, at every stage', () => {
    expect(SMTP_REPLIES.length).toBeGreaterThanOrEqual(150);
    expect(SMTP_REPLIES.filter((c) => c.source.trim().length === 0)).toEqual([]);
    const stages = new Set(SMTP_REPLIES.map((c) => c.stage));
    expect([...stages].sort()).toEqual(['greeting', 'mail', 'rcpt']);
    expect(SMTP_REPLIES.some((c) => c.reply.includes('\n'))).toBe(true);
  });

  it.each(cases.map((c) => [c.i, c.expected, c.reply.split('\n').join(' | ').slice(0, 90), c] as const))(
    'reads reply %i as %s: %s',
    (_i, expected, _text, c) => {
      expect(readReply(parseReply(c.reply.split('\n')), c.stage)).toBe(expected);
    },
  );

  it('gives every reply its verdict through the whole probe, as the server sent it', async () => {
    const results = new Map<number, ValidationResult>();
    // a few at a time: every case is its own SMTP session on loopback
    for (let start = 0; start < cases.length; start += 16) {
      const slice = cases.slice(start, start + 16);
      const done = await Promise.all(slice.map((c) => engine.validate(emailOf(c))));
      slice.forEach((c, k) => results.set(c.i, done[k]!));
    }
    const wrong = cases.flatMap((c) => {
      const r = results.get(c.i)!;
      const want = VERDICT[c.expected];
      const parsed = parseReply(c.reply.split('\n'));
      // a verdict the reply decided names the server's own code; a refusal about us leaves subStatus alone
      const subStatus = c.expected === 'about_us' ? null : (parsed.enhanced ?? String(parsed.code));
      const got = {
        status: r.result.status,
        reason: r.result.reason,
        subStatus: r.result.subStatus,
        smtpProbe: r.mailbox.smtpProbe,
        code: r.mailbox.smtpReply?.code,
        enhanced: r.mailbox.smtpReply?.enhanced,
      };
      const expected = {
        status: want.status,
        reason: want.reason,
        subStatus,
        smtpProbe: want.smtpProbe,
        code: parsed.code,
        enhanced: parsed.enhanced,
      };
      return JSON.stringify(got) === JSON.stringify(expected)
        ? []
        : [{ case: c.i, reply: c.reply, got, expected }];
    });
    expect(wrong).toEqual([]);
    // the reply as reported: one line, at most 200 characters
    for (const r of results.values()) {
      const text = r.mailbox.smtpReply?.text ?? '';
      expect(text.length).toBeLessThanOrEqual(200);
      expect(text).not.toMatch(/[\r\n]/);
    }
    // each RCPT case really reached the server as a RCPT TO
    for (const c of cases.filter((x) => x.stage === 'rcpt'))
      expect(smtp.rcpts).toContain(`case${c.i}@replies.test`);
  });
});
