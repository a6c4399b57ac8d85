// The small pieces behind the engine: typo suggestions, SMTP reply reading, MX providers, roles.
import { classifyRcpt } from '../../../functions/domain/validation/smtp-reply';
import { editDistance, suggestDomain } from '../../../functions/domain/validation/typos';
import { mxProviderOf } from '../../../functions/domain/validation/mx-provider';
import { ABUSE_ROLE, NOT_ROLE, ROLE, roleKindOf } from '../../../functions/domain/validation/lists';

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
});
