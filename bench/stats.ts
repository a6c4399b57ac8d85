// Small statistics shared by the benches.

/** The middle value (the upper one of an even count), of a copy: the input keeps its order. */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
