// For any input at all, the engine answers one of the five statuses with a reason and never throws.
import fc from 'fast-check';
import { STATUSES, checkSyntax, classifyLocal, normalizeEmail } from '../../../functions/domain/validation';
import { useFixtureDnsEngine } from './fixtures/dns-engine';

const fixtureEngine = useFixtureDnsEngine();

const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 10_000 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({
    unit: fc.constantFrom('a', '.', '@', '"', '\\', ' ', '\u0000', '[', ']', 'é', '\ud83d', 'xn--'),
    maxLength: 80,
  }),
  // address-shaped strings, so the DNS path is exercised too
  fc
    .tuple(
      fc.string({ maxLength: 70 }),
      fc.constantFrom('ok.test', 'nx.test', 'servfail.test', 'Bücher.test', '[1.2.3.4]'),
    )
    .map(([local, domain]) => `${local}@${domain}`),
);

describe('any string', () => {
  it('gets one of the five statuses with a reason from validate, and validate never rejects', async () => {
    await fc.assert(
      fc.asyncProperty(anyString, async (input) => {
        const r = await fixtureEngine().validate(input);
        expect(STATUSES).toContain(r.result.status);
        expect(typeof r.result.reason).toBe('string');
        expect(r.result.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('gets one of the five statuses from the synchronous path, and normalise/syntax never throw', () => {
    fc.assert(
      fc.property(anyString, (input) => {
        expect(STATUSES).toContain(fixtureEngine().statusOf(input));
        const n = normalizeEmail(input);
        expect(typeof checkSyntax(n.email).valid).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('gets the same status from the fast path as from the byte-level path', async () => {
    await fixtureEngine().prepareDomains(['ok.test', 'OK.test', 'nullmx.test', 'bücher.test']);
    const local = fc.string({
      unit: fc.constantFrom('a', 'B', '.', '+', '@', '"', '-', 'é', ' ', 'x'),
      maxLength: 70,
    });
    fc.assert(
      fc.property(local, fc.constantFrom('ok.test', 'OK.test', 'nullmx.test', 'bücher.test'), (l, d) => {
        const address = `${l}@${d}`;
        const engine = fixtureEngine();
        expect(engine.statusOf(address)).toBe(classifyLocal(address, engine.domainOf(address)).status);
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts every address fast-check generates as RFC-valid', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        expect(checkSyntax(normalizeEmail(address).email)).toMatchObject({ valid: true, error: null });
      }),
      { numRuns: 500 },
    );
  });
});
