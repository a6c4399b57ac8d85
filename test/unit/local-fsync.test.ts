// LOCAL_FSYNC: three settings, the old true/false still understood, anything else refused by name.
import { asLocalFsync, fsyncsFiles, localFsync } from '../../local/fsync';

describe('LOCAL_FSYNC', () => {
  it('defaults to normal when unset or empty', () => {
    expect(localFsync(undefined)).toBe('normal');
    expect(localFsync('')).toBe('normal');
  });

  it('reads full, normal and off, and true and false as full and off', () => {
    expect(['full', 'normal', 'off', 'true', 'false', ' FULL '].map((raw) => localFsync(raw))).toEqual([
      'full',
      'normal',
      'off',
      'full',
      'off',
      'full',
    ]);
    expect([true, false, 'normal' as const].map(asLocalFsync)).toEqual(['full', 'off', 'normal']);
  });

  it('refuses any other value with the values it takes', () => {
    expect(() => localFsync('yes')).toThrow('LOCAL_FSYNC must be full, normal or off (true, false), got yes');
  });

  it('fdatasyncs the queue journal, objects and events unless off', () => {
    expect(['full', 'normal', 'off'].map((raw) => fsyncsFiles(localFsync(raw)))).toEqual([true, true, false]);
  });
});
