// JSON with keys in alphabetical order at every level: the (fixed) convention of every body we send.

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeysDeep(v);
    }
    return out;
  }
  return value;
}

/** True when a parsed JSON value nests arrays or objects deeper than `max` levels (checked without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > max) return true;
    const next: unknown[] = [];
    for (const item of level)
      if (item !== null && typeof item === 'object') next.push(...Object.values(item as object));
    level = next;
  }
  return false;
}

export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}
