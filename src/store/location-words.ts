import { LRUCache } from 'lru-cache';

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

/** Places each of the two lookups below remembers, the least recently asked for dropped first (a version keeps its array). */
const SHARED_PLACES = 10_000;
const byLocation = new LRUCache<string, readonly string[]>({ max: SHARED_PLACES });
const byWordsText = new LRUCache<string, readonly string[]>({ max: SHARED_PLACES });

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
  return shared(byWordsText, spaceSeparated, () => (spaceSeparated ? spaceSeparated.split(' ') : []));
}

function shared(cache: LRUCache<string, readonly string[]>, key: string, make: () => string[]): readonly string[] {
  let words = cache.get(key);
  if (words === undefined) {
    words = Object.freeze(make());
    cache.set(key, words);
  }
  return words;
}
