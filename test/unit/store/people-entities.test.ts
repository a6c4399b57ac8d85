// The people items as their entities build and read them: keys from keys.ts, every attribute checked.
import { MalformedItemError } from '../../../functions/store/entities/declare';
import { passwordResetEntity, personEntity } from '../../../functions/store/entities/people';
import { passwordResetKey, personKey } from '../../../functions/store/keys';

describe('people entities', () => {
  it('builds and parses a person item keyed by the pool sub', () => {
    const item = personEntity.item({
      ...personKey('sub-1'),
      type: 'person',
      sub: 'sub-1',
      companyId: 'c-1',
      email: 'a@b.example',
      userId: 'u-1',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(item).toEqual({
      pk: 'PERSON#sub-1',
      sk: 'PERSON',
      type: 'person',
      sub: 'sub-1',
      companyId: 'c-1',
      email: 'a@b.example',
      userId: 'u-1',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(personEntity.parse(item)).toEqual(item);
  });

  it('refuses a malformed person or reset item', () => {
    expect(() => personEntity.parse({ ...personKey('s'), type: 'person', sub: 's' })).toThrow(
      MalformedItemError,
    );
    expect(() =>
      passwordResetEntity.parse({
        ...passwordResetKey('h'),
        type: 'passwordReset',
        sub: 's',
        companyId: 'c',
      }),
    ).toThrow(MalformedItemError);
  });

  it('keys a reset by the hash of its token, with a TTL', () => {
    const item = passwordResetEntity.item({
      ...passwordResetKey('ab12'),
      type: 'passwordReset',
      sub: 's',
      companyId: 'c',
      expiresAt: '2026-01-01T01:00:00.000Z',
      ttl: 1767229200,
    });
    expect(item.pk).toBe('PWRESET#ab12');
    expect(item.ttl).toBe(1767229200);
  });
});
