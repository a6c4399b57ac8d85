// Items 8-10 of issue 8: the one address a cell holds, one syntax decision for both paths, IDNA2008
// domain labels, NFC local parts and one-letter top-level domains.
import { checkSyntax } from '../../../functions/domain/validation';
import fc from 'fast-check';
import { plainLocalEnd } from '../../../functions/domain/validation/classify';
import { extractAddress, isOwnAddress } from '../../../functions/domain/validation/extract-address';

describe('extractAddress', () => {
  it.each([
    ['"John Doe" <john@x.com>', 'john@x.com'],
    ['John Doe <john@x.com>', 'john@x.com'],
    ['<john@x.com>', 'john@x.com'],
    ['mailto:john@x.com', 'john@x.com'],
    ['MAILTO:john@x.com?subject=Hi', 'john@x.com'],
    ['<mailto:john@x.com>', 'john@x.com'],
    ['john@x.com.', 'john@x.com'],
    ['john@x.com;', 'john@x.com'],
    ['john@x.com,', 'john@x.com'],
    ['john@x.com\u200b', 'john@x.com'],
    ['\u200b john@x.com \u00a0', 'john@x.com'],
    ['\ufeffjohn@x.com', 'john@x.com'],
  ])('finds the address in %j', (cell, address) => {
    expect(extractAddress(cell)).toBe(address);
  });

  it('returns the cell unchanged whenever isOwnAddress says so (the hot path skips it then)', () => {
    const unit = fc.constantFrom(
      'a',
      'mailto',
      ':',
      '@',
      '.',
      ',',
      ';',
      ' ',
      '<',
      '>',
      '"',
      '?',
      ']',
      '\u200b',
    );
    const part = fc.string({ unit, maxLength: 20 });
    // mostly address-shaped: something, "@", something
    const cell = fc.oneof(
      part,
      fc.tuple(part, part).map(([local, domain]) => `${local}@${domain}`),
    );
    let own = 0;
    fc.assert(
      fc.property(cell, (text) => {
        const at = plainLocalEnd(text);
        if (at > 0 && isOwnAddress(text, at)) {
          own++;
          expect(extractAddress(text)).toBe(text);
        }
      }),
      { numRuns: 20_000 },
    );
    expect(own).toBeGreaterThan(20);
  });

  it('returns a plain address as the same string', () => {
    const cell = 'ann.lee+tag@example.org';
    expect(extractAddress(cell)).toBe(cell);
  });

  it.each(['a@x.com; b@y.com', 'a@x.com, b@y.com', 'a@x.com b@y.com', '<a@x.com>, <b@y.com>'])(
    'sees no single address in %j (several)',
    (cell) => {
      expect(extractAddress(cell)).toBeNull();
    },
  );

  it('keeps a quoted local part holding "@" and separators as one address', () => {
    expect(extractAddress('"a@b; c"@x.com')).toBe('"a@b; c"@x.com');
  });

  it('keeps whitespace inside the address, where syntax rejects it', () => {
    expect(extractAddress('user@ example.com')).toBe('user@ example.com');
    expect(extractAddress('user@\r\nexample.com')).toBe('user@\r\nexample.com');
    expect(checkSyntax('user@ example.com').valid).toBe(false);
    expect(checkSyntax('user@\r\nexample.com').valid).toBe(false);
  });

  it('does not trim control characters that are not whitespace', () => {
    expect(extractAddress('john@x.com\u0007')).toBe('john@x.com\u0007');
  });
});

describe('domain labels (IDNA2008 on top of UTS-46)', () => {
  it.each(['a@\u00a9x.com', 'a@x\u20ac.com', 'a@\u00a3.com', 'a@\u00a1hola.com', 'a@xn--x-mca.com'])(
    'rejects a symbol in %j as invalid_idn',
    (address) => {
      expect(checkSyntax(address).error).toBe('invalid_idn');
    },
  );

  it.each([
    'a@b\u00fccher.de',
    'a@\uff42\uff55\uff43\uff48.de',
    'a@BÜCHER.de',
    'a@stra\u00dfe.de',
    'a@\u4f8b\u3048.jp',
  ])('keeps UTS-46 width and case mapping and accepts letters: %j', (address) => {
    expect(checkSyntax(address)).toMatchObject({ valid: true, error: null });
  });

  it('calls a one-letter top-level domain invalid', () => {
    expect(checkSyntax('a@example.c').error).toBe('single_letter_tld');
    expect(checkSyntax('a@example.co').valid).toBe(true);
  });
});

describe('local parts (RFC 6531)', () => {
  it('counts the length after NFC', () => {
    // 32 × "e" + combining acute: 96 octets as written, 64 in NFC (é is 2 octets)
    expect(checkSyntax(`${'e\u0301'.repeat(32)}@x.com`)).toMatchObject({ valid: true });
    expect(checkSyntax(`${'e\u0301'.repeat(33)}@x.com`).error).toBe('local_part_too_long');
  });

  it.each([
    ['a leading combining mark', '\u0301abc@x.com'],
    ['a private-use character', 'ab\ue000c@x.com'],
    ['a noncharacter', 'ab\ufdd0c@x.com'],
    ['a supplementary noncharacter', 'ab\u{1fffe}c@x.com'],
  ])('rejects %s', (_what, address) => {
    expect(checkSyntax(address).error).toBe('invalid_local_part');
  });

  it('accepts a combining mark after a letter', () => {
    expect(checkSyntax('jose\u0301@x.com').valid).toBe(true);
  });
});
