// The CLI reads a file's first line itself so `--column email` can name a header instead of a number.
import { open } from 'node:fs/promises';
import Papa from 'papaparse';
import { UsageError } from './usage';

/** Enough for any header row; a longer first line is not a header a person wrote. */
const headBytes = 64 * 1024;

/** The first row's fields (delimiter guessed among comma, semicolon, tab and pipe, as the service does). */
export async function readFirstRow(file: string): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(headBytes);
    const { bytesRead } = await handle.read(buffer, 0, headBytes, 0);
    const text = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\ufeff/, '');
    const firstLine = text.split(/\r\n|\n|\r/, 1)[0] ?? '';
    const parsed = Papa.parse<string[]>(firstLine, { delimitersToGuess: [',', ';', '\t', '|'] });
    return parsed.data[0] ?? [];
  } finally {
    await handle.close();
  }
}

const emailLike = /^e-?mail(\s*address)?$/i;

/**
 * The zero-based column: a number as given, a header name matched case-insensitively, or (without
 * --column) the header called email / e-mail / email address.
 */
export function resolveColumn(column: string | undefined, header: string[]): number {
  const names = header.map((name) => name.trim());
  if (column !== undefined && /^\d+$/.test(column)) return Number(column);
  if (column !== undefined) {
    const index = names.findIndex((name) => name.toLowerCase() === column.trim().toLowerCase());
    if (index < 0)
      throw new UsageError(
        `no column named "${column}" in the header (${describe(names)}); name one or give its index`,
      );
    return index;
  }
  const index = names.findIndex((name) => emailLike.test(name));
  if (index < 0)
    throw new UsageError(
      `no "email" column in the first row (${describe(names)}); pass --column <name or zero-based index>`,
    );
  return index;
}

function describe(names: string[]): string {
  const shown = names.slice(0, 8).map((name) => JSON.stringify(name));
  return names.length > 8 ? `${shown.join(', ')}, ...` : shown.join(', ') || 'empty';
}
