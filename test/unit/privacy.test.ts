// Addresses a caller puts in a request path never reach the request log.
import { withoutEmails } from '../../functions/privacy';

describe('withoutEmails', () => {
  it('replaces an address, plain or URL-encoded, and keeps the rest of the path', () => {
    expect(withoutEmails('/v1/users/ada@acme.example')).toBe('/v1/users/[email]');
    expect(withoutEmails('/v1/users/Ada.Lovelace%40acme.example/x')).toBe('/v1/users/[email]/x');
    expect(withoutEmails('/v1/connected-domains/acme.example')).toBe('/v1/connected-domains/acme.example');
    expect(withoutEmails('/v1/email/validate/3f1c')).toBe('/v1/email/validate/3f1c');
  });
});
