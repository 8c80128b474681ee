import { LRUCache } from 'lru-cache';
import type { AnchorPin } from '../analysis/causal-graph.ts';
import { compareInstantPoints } from '../analysis/instants.ts';
import type { AnchorRecord, TimelineStore } from '../store/types.ts';
import { compareUtf8 } from '../store/utf8-order.ts';
import { parseInstant } from '../time/index.ts';

/** The pin of each anchor record the store hands out (it keeps them, frozen, while they are current). */
const pinOfRecord = new WeakMap<AnchorRecord, AnchorPin>();

function pinOf(anchor: AnchorRecord): AnchorPin {
  let pin = pinOfRecord.get(anchor);
  if (!pin) {
    const at = parseInstant(String(anchor['timestamp']));
    pin = Object.freeze({
      anchorId: String(anchor['anchor_id']),
      seconds: Number(at.seconds),
      nanos: at.nanos,
      setAtMs: Date.parse(String(anchor['created_at'] ?? anchor['set_at'] ?? 0)) || 0,
    });
    pinOfRecord.set(anchor, pin);
  }
  return pin;
}

interface PinsInOrder {
  records: readonly AnchorRecord[];
  pins: readonly AnchorPin[];
}

/**
 * Per store, each timeline's pins in instant order, the order the anchor-breach check walks them in, kept while
 * the store hands out the same list of anchor records (a new one when an anchor changes, with the changed
 * record replaced). Sorting 30 000 pins for every paradox check cost the request thread more than the rest of a
 * small timeline's check, and rebuilding them after every change filled the heap with large arrays.
 */
const inOrderByStore = new WeakMap<TimelineStore, LRUCache<string, PinsInOrder>>();
const TIMELINES_KEPT = 256;

/** A timeline's anchor pins, in instant order (shared: callers must not change the array). */
export async function anchorPins(store: TimelineStore, timelineId: string): Promise<readonly AnchorPin[]> {
  const records = await store.listAnchors(timelineId);
  let kept = inOrderByStore.get(store);
  if (!kept) inOrderByStore.set(store, (kept = new LRUCache({ max: TIMELINES_KEPT })));
  const held = kept.get(timelineId);
  if (held?.records === records) return held.pins;
  const pins = (held && pinsAfterChanges(held, records)) ?? Object.freeze(records.map(pinOf).sort(comparePins));
  kept.set(timelineId, { records, pins });
  return pins;
}

/** Each pin put in moves the pins after it: beyond this many (a list read anew), a sort from scratch is cheaper. */
const MOST_PUT_IN = 64;

/**
 * The kept pins with the records that left or changed taken out and the new ones put in place, from one walk
 * over both lists in anchor-id order; undefined, for a sort from scratch, when a list is found out of that order
 * or too many records are new.
 */
function pinsAfterChanges(held: PinsInOrder, records: readonly AnchorRecord[]): readonly AnchorPin[] | undefined {
  const before = held.records;
  const gone = new Set<AnchorPin>();
  const added: AnchorPin[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < records.length) {
    const old = before[i];
    const now = records[j];
    if (old === now) {
      i++;
      j++;
      continue;
    }
    if ((i > 0 && !ascending(before[i - 1]!, old)) || (j > 0 && !ascending(records[j - 1]!, now))) return undefined;
    const order = old === undefined ? 1 : now === undefined ? -1 : compareUtf8(old.anchor_id, now.anchor_id);
    if (order <= 0) {
      gone.add(pinOf(old!));
      i++;
    }
    if (order >= 0) {
      if (added.length === MOST_PUT_IN) return undefined;
      added.push(pinOf(now!));
      j++;
    }
  }
  const pins = gone.size > 0 ? held.pins.filter((pin) => !gone.has(pin)) : held.pins.slice();
  for (const pin of added) pins.splice(firstAfter(pins, pin), 0, pin);
  return Object.freeze(pins);
}

const ascending = (previous: AnchorRecord, next: AnchorRecord | undefined): boolean =>
  next === undefined || compareUtf8(previous.anchor_id, next.anchor_id) < 0;

/** Instant order, and anchor-id order at one instant: the pins' order does not depend on the changes that led to it. */
function comparePins(a: AnchorPin, b: AnchorPin): number {
  return compareInstantPoints(a, b) || compareUtf8(a.anchorId, b.anchorId);
}

/** Where `pin` goes in `pins`, which are in that order. */
function firstAfter(pins: readonly AnchorPin[], pin: AnchorPin): number {
  let low = 0;
  let high = pins.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (comparePins(pins[middle]!, pin) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
