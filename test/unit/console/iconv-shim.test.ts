// The console bundle replaces iconv-lite with the browser's TextDecoder (console/build.ts aliases it):
// for every encoding the service detects, both read the same bytes as the same text.
import iconv from 'iconv-lite';
import shim from '../../../console/src/iconv-shim';
import { trustedEncodings } from '../../../functions/domain/bulk/csv/encoding';

// the fixed ones (BOMs, UTF-8, the Windows-1252 fallback), then those chardet is trusted for
const detected = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252', ...trustedEncodings];

describe('iconv-lite shim for the console bundle', () => {
  it.each(detected)('decodes %s as iconv-lite does', (encoding) => {
    expect(shim.encodingExists(encoding)).toBe(true);
    const text =
      {
        shift_jis: 'メールアドレス,名前\r\n',
        'euc-jp': 'メールアドレス,名前\r\n',
        'euc-kr': '이메일,이름\r\n',
        gb18030: '电子邮件,姓名\r\n',
        big5: '電子郵件,姓名\r\n',
        'windows-1251': 'электронная почта;имя\r\n',
        'koi8-r': 'электронная почта;имя\r\n',
        'iso-8859-5': 'электронная почта;имя\r\n',
        'iso-8859-6': 'بريد,اسم\r\n',
        'iso-8859-7': 'ηλεκτρονικό ταχυδρομείο,όνομα\r\n',
        'iso-8859-8': 'דואר,שם\r\n',
        'windows-1253': 'ηλεκτρονικό ταχυδρομείο,όνομα\r\n',
        'windows-1255': 'דואר,שם\r\n',
        'windows-1256': 'بريد,اسم\r\n',
        // Node 20's TextDecoder reads windows-1252's 0x80-0x9F (€, curly quotes) as Latin-1 controls,
        // unlike browsers; the browser suite checks those bytes in Chromium's preview.
        'windows-1252': 'Prénom,Anaïs,courriel,Señor\r\n',
      }[encoding] ?? 'Prénom,Anaïs — “courriel”,€\r\n';
    const bytes = iconv.encode(text, encoding);
    expect(shim.decode(bytes, encoding)).toBe(iconv.decode(bytes, encoding, { stripBOM: false }));
    expect(shim.decode(bytes, encoding)).toBe(text);
  });

  it('keeps a byte-order mark, as the service asks of iconv-lite (stripBOM: false)', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x41, 0x00]);
    expect(shim.decode(bytes, 'utf-16le')).toBe(iconv.decode(bytes, 'utf-16le', { stripBOM: false }));
  });

  it('says when an encoding is unknown', () => {
    expect(shim.encodingExists('no-such-encoding')).toBe(false);
  });
});
