import {
  dayMarker,
  newTag,
  parsePlacementMessageId,
  placementMessageId,
  tagOfSubject,
  testContent,
} from '../../../functions/domain/mailboxes/tags';

describe('placement test tags', () => {
  it('makes 10-character tags of Crockford base32', () => {
    const tags = new Set(Array.from({ length: 200 }, () => newTag()));
    expect(tags.size).toBe(200);
    for (const tag of tags) expect(tag).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(newTag(() => Buffer.from([0, 1, 31, 32, 33, 255, 10, 20, 30, 17]))).toBe('01Z01ZAMYH');
  });

  it('puts the day and tag in the Message-ID and reads them back', () => {
    const id = placementMessageId('2026-12-02', 'K7Q2M9XA4B', 'alpha.test');
    expect(id).toBe('mvp.20261202.K7Q2M9XA4B@alpha.test');
    expect(id.startsWith(dayMarker('2026-12-02'))).toBe(true);
    expect(parsePlacementMessageId(id)).toEqual({ day: '2026-12-02', tag: 'K7Q2M9XA4B' });
    expect(parsePlacementMessageId(`<${id}>`)).toEqual({ day: '2026-12-02', tag: 'K7Q2M9XA4B' });
    expect(parsePlacementMessageId(' <mvp.20261202.k7q2m9xa4b@alpha.test> ')?.tag).toBe('K7Q2M9XA4B');
  });

  it('refuses Message-IDs that are not tests', () => {
    for (const other of [
      '<CAF=abc123@mail.gmail.com>',
      'mvp.2026122.K7Q2M9XA4B@alpha.test',
      'mvp.20261202.K7Q2M9XA4@alpha.test',
      'mvp.20261202.K7Q2M9XA4BU@alpha.test',
      'mvp.20261202.K7Q2M9XAIB@alpha.test', // I is not in the alphabet
      'xmvp.20261202.K7Q2M9XA4B@alpha.test',
      '',
    ])
      expect(parsePlacementMessageId(other)).toBeNull();
  });

  it('ends the subject with the tag, so a rewritten Message-ID still finds it', () => {
    const { subject, text } = testContent('K7Q2M9XA4B', 'ada.lovelace@alpha.test', 'bob@beta.test');
    expect(subject.endsWith(' K7Q2M9XA4B')).toBe(true);
    expect(tagOfSubject(subject)).toBe('K7Q2M9XA4B');
    expect(tagOfSubject('Lunch plans')).toBeNull();
    expect(text).toMatch(/^Hi Bob,|^Hello Bob,/);
    expect(text).toContain('Ada');
    expect(text).not.toMatch(/https?:|<|>|\bunsubscribe\b/i);
  });
});
