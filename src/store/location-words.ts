const COMBINING_MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/u;

/**
 * The words of a free-text location, as indexed and as queried: lowercase, accents removed (NFD, then
 * combining marks stripped), split on anything that is not a letter or digit. `São Paulo` → [sao, paulo].
 */
export function locationWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .split(NON_WORD)
    .filter((word) => word.length > 0);
}
