// The publishable key kind: its prefix, the origin it is locked to, the one call it may make, and the
// reduced result it gets. Its limits are counted in DynamoDB: test/integration/publishable-keys.test.ts.
import { generatePublishableKey } from '../../../functions/domain/accounts/secrets';
import {
  checkPublishableCall,
  parseOrigin,
  reducedResult,
} from '../../../functions/domain/accounts/publishable';
import type { CompletedBody } from '../../../functions/domain/single-validation/result-body';
import { InvalidKeyError, ValidationError } from '../../../functions/errors';

describe('publishable keys', () => {
  it('start with mv_pub_ and are never the same twice', () => {
    const a = generatePublishableKey();
    expect(a).toMatch(/^mv_pub_[A-Za-z0-9_-]{32}$/);
    expect(generatePublishableKey()).not.toBe(a);
  });

  it('keep an origin in its canonical form', () => {
    expect(parseOrigin('https://Shop.Example')).toBe('https://shop.example');
    expect(parseOrigin('https://shop.example:443/')).toBe('https://shop.example');
    expect(parseOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });

  it.each([
    'shop.example',
    'ftp://shop.example',
    'https://shop.example/signup',
    'https://shop.example?x=1',
    '*',
  ])('refuse %s as an origin with a clear 400', (value) => {
    expect(() => parseOrigin(value)).toThrow(ValidationError);
    expect(() => parseOrigin(value)).toThrow(/origin must be an http\(s\) origin/);
  });

  it('allow only POST /v1/email/validate, only from their own origin', () => {
    const origin = 'https://shop.example';
    expect(() => checkPublishableCall(origin, 'POST /v1/email/validate', origin)).not.toThrow();
    for (const [route, from] of [
      ['POST /v1/email/validate', 'https://evil.example'],
      ['POST /v1/email/validate', undefined],
      ['POST /v1/email/validate', 'http://shop.example'],
      ['POST /v1/email/validate-async', origin],
      ['GET /v1/usage', origin],
      ['$default', origin],
    ] as const)
      expect(() => checkPublishableCall(origin, route, from)).toThrow(InvalidKeyError);
  });

  it('get the verdict and the suggestion, nothing else', () => {
    const full = {
      email: 'jo@gmial.com',
      didYouMean: 'jo@gmail.com',
      requestId: 'r1',
      validatedAt: '2026-01-01T00:00:00.000Z',
      metadata: { crmId: 1 },
      domain: { name: 'gmial.com' },
      mailbox: { localPart: 'jo' },
      result: { reason: 'disposable', status: 'block_bounce_risk', subStatus: 'disposable' },
    } as unknown as CompletedBody;
    expect(reducedResult(full)).toEqual({
      email: 'jo@gmial.com',
      didYouMean: 'jo@gmail.com',
      result: { reason: 'disposable', status: 'block_bounce_risk', subStatus: 'disposable' },
    });
    const { didYouMean: _, ...withoutSuggestion } = full;
    expect(reducedResult(withoutSuggestion as CompletedBody)).not.toHaveProperty('didYouMean');
  });
});
