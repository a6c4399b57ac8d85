// Files that are not CSV text (a workbook, an archive, an image, a PDF, other binary data) renamed .csv:
// recognised by their first bytes, or by NUL bytes in a file that is not UTF-16, so the job fails with
// a sentence that says what the file is and how to export CSV, instead of completing with a results
// file that no longer opens.

const exportCsv = 'Export your list as CSV (UTF-8) and upload that.';

/** Thrown by the scan when the upload is not CSV text; the message is shown as the job's error. */
export class NotCsvError extends Error {}

interface Signature {
  magic: number[];
  /** Byte offset of the magic number. */
  at?: number;
  describe: (sample: Buffer) => string;
}

/** An Office Open XML workbook: a ZIP whose entry names start with `xl/`. */
function isXlsx(sample: Buffer): boolean {
  return sample.includes('xl/', 0, 'latin1');
}

const signatures: Signature[] = [
  {
    magic: [0x50, 0x4b, 0x03, 0x04],
    describe: (sample) =>
      isXlsx(sample)
        ? 'This file is an Excel workbook (.xlsx), not CSV. In Excel choose File > Save As > CSV UTF-8 and upload that.'
        : `This file is a ZIP archive (or a document packed as one), not CSV. Unzip it and upload the CSV inside, or open it and save as CSV UTF-8.`,
  },
  {
    magic: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    describe: () =>
      'This file is an Excel 97-2003 workbook (.xls), not CSV. In Excel choose File > Save As > CSV UTF-8 and upload that.',
  },
  {
    magic: [0x1f, 0x8b],
    describe: () => 'This file is gzip-compressed, not CSV. Decompress it and upload the CSV file inside.',
  },
  {
    magic: [0x42, 0x5a, 0x68],
    describe: () => 'This file is bzip2-compressed, not CSV. Decompress it and upload the CSV file inside.',
  },
  {
    magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c],
    describe: () => 'This file is a 7-Zip archive, not CSV. Extract it and upload the CSV file inside.',
  },
  {
    magic: [0x52, 0x61, 0x72, 0x21],
    describe: () => 'This file is a RAR archive, not CSV. Extract it and upload the CSV file inside.',
  },
  { magic: [0x25, 0x50, 0x44, 0x46], describe: () => `This file is a PDF document, not CSV. ${exportCsv}` },
  { magic: [0x89, 0x50, 0x4e, 0x47], describe: () => `This file is a PNG image, not CSV. ${exportCsv}` },
  { magic: [0xff, 0xd8, 0xff], describe: () => `This file is a JPEG image, not CSV. ${exportCsv}` },
  { magic: [0x47, 0x49, 0x46, 0x38], describe: () => `This file is a GIF image, not CSV. ${exportCsv}` },
  {
    magic: [0x57, 0x45, 0x42, 0x50],
    at: 8,
    describe: () => `This file is a WebP image, not CSV. ${exportCsv}`,
  },
  {
    magic: [0xff, 0xfe, 0x00, 0x00],
    describe: () => `This file is UTF-32 text, which is not supported. ${exportCsv}`,
  },
  {
    magic: [0x00, 0x00, 0xfe, 0xff],
    describe: () => `This file is UTF-32 text, which is not supported. ${exportCsv}`,
  },
];

/** Why the file is not CSV text, judged from its first bytes; undefined when it may be text. */
export function notTextReason(sample: Buffer): string | undefined {
  for (const s of signatures) {
    const at = s.at ?? 0;
    if (sample.length >= at + s.magic.length && s.magic.every((b, i) => sample[at + i] === b))
      return s.describe(sample);
  }
  return undefined;
}

/** The error for NUL bytes in a file that is not UTF-16. */
export const binaryDataError = `This file contains binary data (NUL bytes), so it is not CSV text. ${exportCsv}`;
