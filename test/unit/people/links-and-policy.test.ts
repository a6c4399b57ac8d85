// One-time tokens (random, only their SHA-256 kept) and the password policy's words.
import {
  acceptInviteUrl,
  hashOneTimeToken,
  newInviteLink,
  newOneTimeToken,
} from '../../../functions/domain/people/links';
import {
  passwordPolicy,
  passwordProblems,
  passwordRefusal,
} from '../../../functions/domain/people/password-policy';

describe('one-time tokens', () => {
  it('are 256 random bits in base64url, never the same twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newOneTimeToken()));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('are kept as their SHA-256 only: a hex digest that does not contain the token', () => {
    const { token, tokenHash } = newInviteLink();
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenHash).toBe(hashOneTimeToken(token));
    expect(tokenHash).not.toContain(token);
    // The digest of a known input (FIPS 180-2's "abc" example).
    expect(hashOneTimeToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("put the token in the accept page's URL fragment, which browsers never send to a server", () => {
    expect(acceptInviteUrl('https://console.example/', 'tok_en-1')).toBe(
      'https://console.example/#/accept-invite/tok_en-1',
    );
  });
});

describe('the password policy', () => {
  it('accepts a password with every kind of character and the length', () => {
    expect(passwordRefusal('Correct-horse-b4ttery!')).toBeUndefined();
    expect(passwordProblems('Aa1!Aa1!Aa1!')).toEqual([]);
  });

  it.each([
    ['short', ['at least 12 characters', 'an upper-case letter', 'a digit', 'a symbol']],
    ['alllowercase-letters', ['an upper-case letter', 'a digit']],
    ['NO-LOWER-CASE-123', ['a lower-case letter']],
    ['NoSymbolsHere123', ['a symbol']],
    [' Leading-space-1A', ['no space at the start or end']],
  ])('says what %j needs', (password, needs) => {
    expect(passwordProblems(password)).toEqual(needs);
    expect(passwordRefusal(password)).toBe(
      `A password needs at least ${passwordPolicy.minLength} characters, with a lower-case letter, an upper-case letter, a digit and a symbol (this one needs ${needs.join(', ')})`,
    );
  });
});
