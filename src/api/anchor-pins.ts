import { LRUCache } from 'lru-cache';
import { earliestSetAtOf, knowWalkOrder } from '../analysis/anchor-breaches.ts';
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
  /** Handed out: frozen, and shared by every caller until an anchor changes. */
  pins: readonly AnchorPin[];
  /**
   * The same pins in a plain array of its own, which the next change edits in place: V8 copies a frozen array one
   * element at a time, several times slower than a plain one (1 ms for 30 000 pins).
   */
  working: AnchorPin[];
  earliestSetAt: number;
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
  let inOrder = held && pinsAfterChanges(held, records);
  if (!inOrder) {
    const working = records.map(pinOf).sort(comparePins);
    inOrder = { records, pins: Object.freeze(working.slice()), working, earliestSetAt: earliestSetAtOf(working) };
  }
  kept.set(timelineId, inOrder);
  knowWalkOrder(inOrder.pins, inOrder.earliestSetAt);
  return inOrder.pins;
}

/** Each pin put in or taken out moves the pins after it: beyond this many (a list read anew), a sort from scratch is cheaper. */
const MOST_PUT_IN = 64;

/**
 * The kept pins with the records that left or changed taken out and the new ones put in place, from one walk
 * over both lists in anchor-id order, and when the earliest of them was set; undefined, for a sort from scratch,
 * when a list is found out of that order or too many records left or are new.
 */
function pinsAfterChanges(held: PinsInOrder, records: readonly AnchorRecord[]): PinsInOrder | undefined {
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
      if (gone.size === MOST_PUT_IN) return undefined;
      gone.add(pinOf(old!));
      i++;
    }
    if (order >= 0) {
      if (added.length === MOST_PUT_IN) return undefined;
      added.push(pinOf(now!));
      j++;
    }
  }
  const working = held.working;
  for (const pin of gone) {
    const at = firstAfter(working, pin);
    // Not where its order puts it: the kept pins are not the records' (the caller sorts anew, with a new array).
    if (working[at] !== pin) return undefined;
    working.splice(at, 1);
  }
  for (const pin of added) working.splice(firstAfter(working, pin), 0, pin);
  const earliestGone = [...gone].some((pin) => pin.setAtMs <= held.earliestSetAt);
  const earliestSetAt = earliestGone ? earliestSetAtOf(working) : added.reduce((earliest, pin) => Math.min(earliest, pin.setAtMs), held.earliestSetAt);
  return { records, pins: Object.freeze(working.slice()), working, earliestSetAt };
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
