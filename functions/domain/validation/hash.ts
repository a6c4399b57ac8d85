// FNV-1a over a range of a string's code units: hot-path lookups hash s[start, end) in place instead
// of slicing a new string for V8 to hash. Results are masked to 30 bits so they stay small integers
// (V8 Smis): a full 32-bit hash would be boxed as a heap number on every lookup.

export function fnv1a(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}
