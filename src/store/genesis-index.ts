/**
 * A level's search index of its genesis (bulk-loaded) events, in memory: every genesis event in
 * (time, event id) order, with its positions per location word and per place, and the places of each word.
 * Built from the genesis snapshot, which never changes until the next bulk load, so the index is immutable;
 * versions written above genesis are indexed apart (current-index.ts). Searches binary-search it instead of
 * reading the store's index.
 *
 * Times are compared as numbers, which is exact while seconds are within ±2^53 (285 million years): a
 * snapshot holding an instant beyond that gets no index, and the level is searched on the store's index.
 */
import { sortedIndexes } from '../analysis/sort-in-steps.ts';
import { STEP_EVERY, type Steps } from '../analysis/time-slices.ts';
import type { GenesisSnapshot } from './genesis-snapshot.ts';
import { stringBytes, typedArrayBytes } from './metered-cache.ts';
import { compareUtf8 } from './utf8-order.ts';

export interface GenesisIndex {
  /** Per position, in (time, event id) order. */
  seconds: Float64Array;
  nanos: Int32Array;
  ids: string[];
  place: Int32Array;
  /** Distinct location words of each place number. */
  placeWords: string[][];
  /** Positions of the events at a place with the word, ascending. */
  postings: Map<string, Int32Array>;
  /** Place numbers whose location has the word, ascending. */
  placesByWord: Map<string, Int32Array>;
  /** Positions grouped by place number, ascending within each place: place p's are from placeStarts[p] to placeStarts[p + 1]. */
  placePositions: Int32Array;
  placeStarts: Int32Array;
}

/** Where a range starts: at `seconds`.`nanos` (the first event at or after it), or after the event `afterId` there. */
export interface IndexBound {
  seconds: number;
  nanos: number;
  afterId?: string;
}

const STEP_MASK = STEP_EVERY - 1;

export function* buildGenesisIndex(snapshot: GenesisSnapshot): Steps<GenesisIndex | undefined> {
  const { seconds, nanos, ids, place } = snapshot;
  const n = ids.length;
  for (let i = 0; i < n; i++) {
    if (Math.abs(seconds[i]!) > Number.MAX_SAFE_INTEGER) return undefined;
    if ((i & STEP_MASK) === STEP_MASK) yield;
  }
  const order = yield* sortedIndexes(n, (a, b) => seconds[a]! - seconds[b]! || nanos[a]! - nanos[b]! || compareUtf8(ids[a]!, ids[b]!));
  const placeWords = snapshot.placeNames.map((name) => [...new Set(name.split(' ').filter((word) => word.length > 0))]);
  const index: GenesisIndex = {
    seconds: new Float64Array(n),
    nanos: new Int32Array(n),
    ids: new Array<string>(n),
    place: new Int32Array(n),
    placeWords,
    postings: new Map(),
    placesByWord: placesByWord(placeWords),
    placePositions: new Int32Array(n),
    placeStarts: new Int32Array(placeWords.length + 1),
  };
  const counts = new Map<string, number>();
  for (let position = 0; position < n; position++) {
    const i = order[position]!;
    index.seconds[position] = seconds[i]!;
    index.nanos[position] = nanos[i]!;
    index.ids[position] = ids[i]!;
    index.place[position] = place[i]!;
    for (const word of index.placeWords[place[i]!] ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
    if ((position & STEP_MASK) === STEP_MASK) yield;
  }
  const { placeStarts, placePositions } = index;
  for (let position = 0; position < n; position++) {
    placeStarts[index.place[position]! + 1]! += 1;
    if ((position & STEP_MASK) === STEP_MASK) yield;
  }
  for (let place = 0; place < placeWords.length; place++) placeStarts[place + 1]! += placeStarts[place]!;
  const placeFilled = placeStarts.slice(0, placeWords.length);
  for (let position = 0; position < n; position++) {
    placePositions[placeFilled[index.place[position]!]!++] = position;
    if ((position & STEP_MASK) === STEP_MASK) yield;
  }
  const filled = new Map<string, number>();
  for (const [word, count] of counts) {
    index.postings.set(word, new Int32Array(count));
    filled.set(word, 0);
  }
  for (let position = 0; position < n; position++) {
    for (const word of index.placeWords[index.place[position]!] ?? []) {
      const at = filled.get(word)!;
      index.postings.get(word)![at] = position;
      filled.set(word, at + 1);
    }
    if ((position & STEP_MASK) === STEP_MASK) yield;
  }
  return index;
}

function placesByWord(placeWords: readonly string[][]): Map<string, Int32Array> {
  const lists = new Map<string, number[]>();
  placeWords.forEach((words, place) => {
    for (const word of words) {
      const list = lists.get(word);
      if (list) list.push(place);
      else lists.set(word, [place]);
    }
  });
  return new Map([...lists].map(([word, places]) => [word, Int32Array.from(places)]));
}

/** The places whose events a walk keeps. */
export interface PlaceFilter {
  has(place: number): boolean;
}

/** Where a search's genesis candidates come from: the positions to walk (all when undefined), and the places to keep among them (all when undefined). */
export interface SearchPositions {
  positions: Int32Array | undefined;
  places: PlaceFilter | undefined;
}

/** Up to this many places for a search's rarest word, the places with every word are found up front. */
const PLACES_FOUND_UP_FRONT = 256;

/**
 * The positions a search of `words` walks, `driver` being its rarest word; undefined when no genesis event can
 * match. Words that only one place has walk that place's events; otherwise the driver's postings, kept when at
 * a place with every word.
 */
export function searchPositions(index: GenesisIndex, words: readonly string[], driver: string | undefined): SearchPositions | undefined {
  if (driver === undefined) return { positions: undefined, places: undefined };
  const postings = index.postings.get(driver);
  if (!postings) return undefined;
  if (words.length < 2) return { positions: postings, places: undefined };
  const places = placesWithAll(index, words);
  if (!places) return { positions: postings, places: placesTestedOnce(index, words) };
  if (places.size === 0) return undefined;
  if (places.size === 1) {
    const [place] = places;
    return { positions: index.placePositions.subarray(index.placeStarts[place!], index.placeStarts[place! + 1]), places: undefined };
  }
  return { positions: postings, places };
}

/**
 * The place numbers whose location has every one of `words`, found from the word with the fewest places;
 * undefined when even that word is at more than PLACES_FOUND_UP_FRONT places (a walk then tests the places it meets).
 */
export function placesWithAll(index: GenesisIndex, words: readonly string[]): ReadonlySet<number> | undefined {
  let fewest: Int32Array | undefined;
  for (const word of words) {
    const places = index.placesByWord.get(word);
    if (!places) return new Set();
    if (!fewest || places.length < fewest.length) fewest = places;
  }
  if (!fewest || fewest.length > PLACES_FOUND_UP_FRONT) return undefined;
  const found = new Set<number>();
  for (const place of fewest) if (hasEvery(index, place, words)) found.add(place);
  return found;
}

function placesTestedOnce(index: GenesisIndex, words: readonly string[]): PlaceFilter {
  const tested = new Map<number, boolean>();
  return {
    has(place) {
      let kept = tested.get(place);
      if (kept === undefined) tested.set(place, (kept = hasEvery(index, place, words)));
      return kept;
    },
  };
}

function hasEvery(index: GenesisIndex, place: number, words: readonly string[]): boolean {
  const placeWords = index.placeWords[place]!;
  return words.every((word) => placeWords.includes(word));
}

export function genesisIndexBytes(index: GenesisIndex): number {
  let bytes = typedArrayBytes(index) + index.ids.length * (8 + stringBytes(index.ids[0] ?? ''));
  for (const [word, positions] of index.postings) bytes += positions.byteLength + stringBytes(word) + 64;
  for (const places of index.placesByWord.values()) bytes += places.byteLength + 64;
  return bytes;
}

/** Negative, zero or positive as the event at `position` is before, at or past `bound`. */
function compareToBound(index: GenesisIndex, position: number, bound: IndexBound): number {
  const seconds = index.seconds[position]! - bound.seconds;
  if (seconds !== 0) return seconds;
  const nanos = index.nanos[position]! - bound.nanos;
  if (nanos !== 0 || bound.afterId === undefined) return nanos;
  // After an event: the one at the bound itself is not in the range.
  return compareUtf8(index.ids[position]!, bound.afterId) || -1;
}

/**
 * The first place in `positions` (all positions, or a word's list) whose event is in the range that starts
 * at `bound`: at or after its instant, or strictly after its event.
 */
export function firstInRange(index: GenesisIndex, positions: Int32Array | undefined, bound: IndexBound | undefined): number {
  const length = positions ? positions.length : index.ids.length;
  if (!bound) return 0;
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareToBound(index, positions ? positions[middle]! : middle, bound) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Whether the event at `position` is later than `seconds`.`nanos`. */
export function pastEnd(index: GenesisIndex, position: number, end: IndexBound): boolean {
  const seconds = index.seconds[position]!;
  return seconds > end.seconds || (seconds === end.seconds && index.nanos[position]! > end.nanos);
}
