import { LRUCache } from 'lru-cache';
import type { AnchorPin } from '../analysis/causal-graph.ts';
import { compareInstantPoints } from '../analysis/instants.ts';
import type { AnchorRecord, TimelineStore } from '../store/types.ts';
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
 * the store hands out the same anchor records (it replaces a record when the anchor changes). Sorting 30 000 pins
 * for every paradox check cost the request thread more than the rest of a small timeline's check.
 */
const inOrderByStore = new WeakMap<TimelineStore, LRUCache<string, PinsInOrder>>();
const TIMELINES_KEPT = 256;

const sameRecords = (a: readonly AnchorRecord[], b: readonly AnchorRecord[]): boolean =>
  a.length === b.length && a.every((record, k) => record === b[k]);

/** The pins still present in their old order, the new ones after them: sorting that is nearly linear. */
function sortedPins(records: readonly AnchorRecord[], before: readonly AnchorPin[] = []): readonly AnchorPin[] {
  const current = new Set(records.map(pinOf));
  const kept = before.filter((pin) => current.has(pin));
  for (const pin of kept) current.delete(pin);
  return Object.freeze([...kept, ...current].sort(compareInstantPoints));
}

/** A timeline's anchor pins, in instant order (shared: callers must not change the array). */
export async function anchorPins(store: TimelineStore, timelineId: string): Promise<readonly AnchorPin[]> {
  const records = await store.listAnchors(timelineId);
  let kept = inOrderByStore.get(store);
  if (!kept) inOrderByStore.set(store, (kept = new LRUCache({ max: TIMELINES_KEPT })));
  const held = kept.get(timelineId);
  if (held && sameRecords(held.records, records)) return held.pins;
  const pins = sortedPins(records, held?.pins);
  kept.set(timelineId, { records, pins });
  return pins;
}
