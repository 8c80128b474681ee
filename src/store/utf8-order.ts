/**
 * Store keys order event ids by their UTF-8 bytes; JavaScript compares strings by UTF-16 code units. The two
 * orders differ only between a surrogate (U+D800..U+DFFF, half of a character above U+FFFF) and a character
 * in U+E000..U+FFFF: in UTF-8 the character above U+FFFF comes last.
 */
function utf8Rank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Negative, zero or positive as `a` sorts before, with or after `b` in UTF-8 byte order. */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}
