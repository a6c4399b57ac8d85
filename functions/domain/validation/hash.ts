// FNV-1a over a range of a string's code units: hot-path lookups hash s[start, end) in place instead
// of slicing a new string for V8 to hash.

export function fnv1a(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** fnv1a with ASCII upper case folded to lower case. */
export function fnv1aLower(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}
