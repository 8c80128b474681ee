import type { AnchorPin } from '../analysis/causal-graph.ts';
import { earliestSetAtOf, knowWalkOrder } from '../analysis/anchor-breaches.ts';
import { compareInstantPoints, instantPoint } from '../analysis/instants.ts';
import { parseInstant } from '../time/index.ts';
import type { AnchorRecord } from './types.ts';
import { compareUtf8 } from './utf8-order.ts';

/** The pin of each anchor record kept (records are frozen and replaced, never changed, so a pin stays true). */
const pinOfRecord = new WeakMap<AnchorRecord, AnchorPin>();

/** The anchor's pin, made once per record; throws for a timestamp that is not one. */
export function pinOf(anchor: AnchorRecord): AnchorPin {
  let pin = pinOfRecord.get(anchor);
  if (!pin) {
    const at = parseInstant(anchor.timestamp);
    pin = Object.freeze({
      anchorId: anchor.anchor_id,
      ...instantPoint(at.seconds, at.nanos),
      setAtMs: Date.parse(String(anchor['created_at'] ?? 0)) || 0,
    });
    pinOfRecord.set(anchor, pin);
  }
  return pin;
}

/** Instant order, and anchor-id order at one instant: the order does not depend on the changes that led to it. */
function comparePins(a: AnchorPin, b: AnchorPin): number {
  return compareInstantPoints(a, b) || compareUtf8(a.anchorId, b.anchorId);
}

/**
 * One level's anchors as pins in the order the anchor-breach check walks them, changed in place with each anchor
 * change. The pins handed out are a frozen copy, shared until the next change: V8 copies a frozen array one element
 * at a time, several times slower than a plain one, so the array changed is never the one handed out.
 */
export class PinOrder {
  private readonly pins: AnchorPin[];
  /** Undefined after the earliest-set pin left, until someone asks. */
  private earliestSetAt: number | undefined;
  private shared: readonly AnchorPin[] | undefined;

  constructor(records: readonly AnchorRecord[]) {
    this.pins = records.map(pinOf).sort(comparePins);
  }

  add(record: AnchorRecord): void {
    const pin = pinOf(record);
    this.pins.splice(this.position(pin), 0, pin);
    if (this.earliestSetAt !== undefined) this.earliestSetAt = Math.min(this.earliestSetAt, pin.setAtMs);
    this.shared = undefined;
  }

  remove(record: AnchorRecord): void {
    const pin = pinOf(record);
    const at = this.position(pin);
    if (this.pins[at] !== pin) return;
    this.pins.splice(at, 1);
    if (this.earliestSetAt !== undefined && pin.setAtMs <= this.earliestSetAt) this.earliestSetAt = undefined;
    this.shared = undefined;
  }

  /** The pins handed out; the breach check is told their order and earliest setting, so that it need not find out. */
  current(): readonly AnchorPin[] {
    if (!this.shared) {
      this.earliestSetAt ??= earliestSetAtOf(this.pins);
      this.shared = Object.freeze(this.pins.slice());
      knowWalkOrder(this.shared, this.earliestSetAt);
    }
    return this.shared;
  }

  /** Where `pin` is, or would go. */
  private position(pin: AnchorPin): number {
    let low = 0;
    let high = this.pins.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (comparePins(this.pins[middle]!, pin) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
