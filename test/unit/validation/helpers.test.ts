// The small pieces behind the engine: typo suggestions, SMTP reply reading, MX providers, roles.
import {
  classifyRcpt,
  parseReply,
  readReply,
  replyForResult,
  subStatusOf,
} from '../../../functions/domain/validation/smtp-reply';
import { editDistance, suggestDomain } from '../../../functions/domain/validation/typos';
import { mxProviderOf } from '../../../functions/domain/validation/mx-provider';
import roleLocalParts from 'role-based-email-addresses';
import {
  ABUSE_ROLE,
  NOT_ROLE,
  ROLE,
  roleKindOf,
  roleKindOfRange,
} from '../../../functions/domain/validation/lists';

describe('didYouMean', () => {
  it.each([
    ['gmial.com', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['gmail.con', 'gmail.com'],
    ['gmail.cm', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['yaho.com', 'yahoo.com'],
    ['outlok.com', 'outlook.com'],
    ['icloud.co', 'icloud.com'],
    ['protonmai.com', 'protonmail.com'],
  ])('suggests %s -> %s', (typo, fix) => {
    expect(suggestDomain(typo)).toBe(fix);
  });

  it.each([
    'gmail.com',
    'mail.com',
    'gmx.de',
    'gmx.net',
    'yahoo.fr',
    'yahoo.co.uk',
    'hotmail.co.uk',
    'love.com',
    'life.com',
    'aop.com',
    'mail.gmail.com',
    'example.com',
  ])('leaves %s alone', (domain) => {
    expect(suggestDomain(domain)).toBeNull();
  });

  it('measures transpositions as one edit', () => {
    expect(editDistance('gmial', 'gmail', 2)).toBe(1);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });
});

describe('RCPT replies', () => {
  const r = (code: number, text: string) => ({
    code,
    enhanced: /^\d\.\d+\.\d+/.exec(text)?.[0] ?? null,
    text,
  });
  it.each([
    [r(250, '2.1.5 OK'), 'accepted'],
    [r(550, '5.1.1 user unknown'), 'not_found'],
    [r(550, 'No such user here'), 'not_found'],
    [r(553, 'mailbox name not allowed: unknown user'), 'not_found'],
    [r(550, '5.7.1 blocked by Spamhaus'), 'blocked'],
    [r(554, 'rejected: listed at zen.spamhaus.org, user unknown'), 'blocked'],
    [r(552, '5.2.2 mailbox full'), 'full'],
    [r(452, '4.2.2 over quota'), 'full'],
    [r(451, '4.7.1 greylisted'), 'greylisted'],
    [r(421, 'try later'), 'greylisted'],
  ] as const)('reads %j as %s', (reply, outcome) => {
    expect(classifyRcpt(reply)).toBe(outcome);
  });
});

describe('SMTP reply parsing', () => {
  it('joins a multi-line reply and keeps its enhanced code once', () => {
    expect(
      parseReply([
        '550-5.1.1 The email account that you tried to reach does not exist.',
        '550 5.1.1  Learn more',
      ]),
    ).toEqual({
      code: 550,
      enhanced: '5.1.1',
      text: 'The email account that you tried to reach does not exist. Learn more',
    });
  });

  it("reads qmail's trailing (#5.7.1) as the enhanced code", () => {
    expect(parseReply(['553 sorry, no mailbox here by that name. (#5.7.1)'])).toMatchObject({
      code: 553,
      enhanced: '5.7.1',
    });
  });

  it('distrusts an enhanced code whose class contradicts the reply code', () => {
    // 550 with 4.4.7: the basic code and the words decide (here: nothing about the mailbox)
    expect(classifyRcpt(parseReply(['550 4.4.7 QUEUE.Expired; message expired']))).toBe('blocked');
  });

  it('reads a mailbox answer before RCPT as about us, and keeps temporary answers temporary', () => {
    const unknown = parseReply(['550 5.1.1 <probe@mailvet.test>... User unknown']);
    expect(readReply(unknown, 'rcpt')).toBe('not_found');
    expect(readReply(unknown, 'mail')).toBe('about_us');
    expect(readReply(parseReply(['421 4.7.0 Try again later, closing connection.']), 'greeting')).toBe(
      'temporary',
    );
    expect(readReply(parseReply(['554 5.7.1 You are not allowed to connect']), 'greeting')).toBe('about_us');
  });

  it('reports the reply on one line of at most 200 characters, and its code as subStatus', () => {
    const long = { code: 550, enhanced: null, text: `a\u0007b\tc ${'x'.repeat(300)}` };
    const shown = replyForResult(long);
    expect(shown?.text).toMatch(/^a b c x+$/);
    expect(shown?.text).toHaveLength(200);
    // a line without a code is no reply to report
    expect(replyForResult(parseReply(['hello there']))).toBeNull();
    expect(subStatusOf(long)).toBe('550');
    expect(subStatusOf({ code: 550, enhanced: '5.1.10', text: '' })).toBe('5.1.10');
  });
});

describe('mxProvider', () => {
  it.each([
    [['aspmx.l.google.com', 'alt1.aspmx.l.google.com'], 'google'],
    [['example-com.mail.protection.outlook.com'], 'microsoft'],
    [['mta5.am0.yahoodns.net'], 'yahoo'],
    [['mx.zoho.com'], 'zoho'],
    [['mail.protonmail.ch'], 'proton'],
    [['mx.example.org'], 'other'],
    [[], null],
  ] as const)('names %j %s', (hosts, provider) => {
    expect(mxProviderOf(hosts)).toBe(provider);
  });
});

describe('roles', () => {
  it('folds case and drops the +tag', () => {
    expect(roleKindOf('ABUSE+x')).toBe(ABUSE_ROLE);
    expect(roleKindOf('Sales')).toBe(ROLE);
    expect(roleKindOf('jane.doe')).toBe(NOT_ROLE);
    expect(roleKindOf('md')).toBe(NOT_ROLE); // initials, not a team
  });

  it('reads a role inside a longer text, in any case, the same as the role alone', () => {
    for (const role of roleLocalParts as readonly string[]) {
      const mixed = [...role].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join('');
      const text = `x${mixed}@example.com`;
      expect([role, roleKindOfRange(text, 1, 1 + role.length)]).toEqual([role, roleKindOf(role)]);
    }
    expect(roleKindOfRange('xINFOx@example.com', 1, 5)).toBe(ROLE);
    expect(roleKindOfRange('xinfo@example.com', 1, 4)).toBe(NOT_ROLE); // "inf"
    expect(roleKindOfRange('noc+tag@example.com', 0, 7)).toBe(ABUSE_ROLE);
  });

  it('folds non-ASCII letters as String.toLowerCase does', () => {
    // KELVIN SIGN lower-cases to an ASCII "k": the range is then read through toLowerCase
    expect(roleKindOf('mar\u212Aeting')).toBe(ROLE);
    expect(roleKindOf('m\u00e4rketing')).toBe(NOT_ROLE);
  });
});
