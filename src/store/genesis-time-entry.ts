/**
 * The value of a genesis event's entry in the store's time index (`t`, see keys.ts): its location words, so
 * a search reading that index (where a level has no in-memory index) can filter by words without reading
 * records. Stores loaded before this carried the whole record there (and a `w` entry per word, no longer
 * read); both forms are read.
 */
import { utf8 } from './keys.ts';
import { storedWordsText } from './location-words.ts';

const OPEN_BRACE = 0x7b;

/** `words`: what `locationWords` gives, joined by spaces; letters and digits only, so never `{`. */
export function encodeTimeEntry(words: string): Buffer {
  return utf8(words);
}

export type TimeEntry = { json: Uint8Array } | { words: string[] };

export function decodeTimeEntry(value: Uint8Array): TimeEntry {
  if (value.length > 0 && value[0] === OPEN_BRACE) return { json: value };
  const text = storedWordsText(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8'));
  return { words: text.length === 0 ? [] : text.split(' ') };
}
