// The benches' numeric command-line flags, read one way: `--name value`, a positive number.

/** The value after `--name`, or `fallback` when the flag is absent; a whole number when `whole`. */
export function numberFlag(name: string, fallback: number, whole = false): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  const valid = whole ? Number.isInteger(value) : Number.isFinite(value);
  if (!valid || value <= 0) throw new Error(`--${name} needs a positive ${whole ? 'whole ' : ''}number`);
  return value;
}
