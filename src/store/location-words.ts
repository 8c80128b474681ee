import { MeteredCache, stringBytes, type CacheCounts } from './metered-cache.ts';

const COMBINING_MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/u;

/**
 * Lowercase letters that no Unicode decomposition takes to a plain Latin letter, as they are usually written
 * without their stroke or ligature: `Łódź` is searched as `lodz`, `Straße` as `strasse`, `Ærø` as `aero`.
 */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ł: 'l', ŀ: 'l', ø: 'o', đ: 'd', ð: 'd', ħ: 'h', ı: 'i', ŧ: 't', ĸ: 'k', ŋ: 'n', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th',
};
const FOLDED_LETTER = new RegExp(`[${Object.keys(LETTER_FOLDS).join('')}]`, 'gu');
const NOT_ASCII = /[^\x20-\x7e]/;

const foldLetters = (lowercase: string): string => lowercase.replace(FOLDED_LETTER, (letter) => LETTER_FOLDS[letter]!);

/**
 * The words of a free-text location, as indexed and as queried: lowercase, accents removed (NFD, then
 * combining marks stripped), the letters above folded, split on anything that is not a letter or digit.
 * `São Paulo` → [sao, paulo].
 */
export function locationWords(text: string): string[] {
  // Printable ASCII has no marks to strip and no letters to fold: most places, and every query typed so.
  const lowercase = NOT_ASCII.test(text) ? foldLetters(text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase()) : text.toLowerCase();
  return lowercase.split(NON_WORD).filter((word) => word.length > 0);
}

/**
 * Words a store holds (space-separated), as `locationWords` makes them now: stores written before the letter
 * folds hold `łodz` where a query now asks for `lodz`.
 */
export const storedWordsText = (spaceSeparated: string): string => (NOT_ASCII.test(spaceSeparated) ? foldLetters(spaceSeparated) : spaceSeparated);

/** Bytes each of the two lookups below may hold (about 10 000 places of twenty characters); a version keeps its array. */
const SHARED_WORDS_BYTES = 2 * 1024 * 1024;
/** An array's header and its elements' slots, beyond the strings. */
const ARRAY_OVERHEAD = 32;
const byLocation = new MeteredCache<string, readonly string[]>('location_words', SHARED_WORDS_BYTES);
const byWordsText = new MeteredCache<string, readonly string[]>('stored_words', SHARED_WORDS_BYTES);

/**
 * `locationWords`, frozen and shared by every caller that asks for a place seen lately. Each version in memory
 * keeps its place's words for life, and events name the same places over and over: one array per place rather
 * than one per version.
 */
export function sharedLocationWords(text: string): readonly string[] {
  return shared(byLocation, text, () => locationWords(text));
}

/** Words stored space-separated (as summaries hold them), shared as `sharedLocationWords` shares them. */
export function sharedWords(spaceSeparated: string): readonly string[] {
  return shared(byWordsText, spaceSeparated, () => (spaceSeparated ? storedWordsText(spaceSeparated).split(' ') : []));
}

/** The two lookups' counts, for `/metrics` (they serve every store of the process). */
export function sharedWordsCounts(): CacheCounts[] {
  return [byLocation.counts(), byWordsText.counts()];
}

function shared(cache: MeteredCache<string, readonly string[]>, key: string, make: () => string[]): readonly string[] {
  let words = cache.get(key);
  if (words === undefined) {
    words = Object.freeze(make());
    cache.set(key, words, stringBytes(key) + ARRAY_OVERHEAD + words.reduce((bytes, word) => bytes + 4 + stringBytes(word), 0));
  }
  return words;
}
