/**
 * Event id → graph position for a graph of millions of nodes, as an open-addressing hash table of positions
 * in one Int32Array (8 MB per 10^6 ids, where a Map would take several times that). The ids themselves are
 * not copied: a slot holds a position and the graph's id list says which id is there.
 */
import { STEP_EVERY, type Steps } from '../analysis/time-slices.ts';

const STEP_MASK = STEP_EVERY - 1;

/** FNV-1a over UTF-16 code units. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

export class IdPositions {
  /** Position + 1 per slot; 0 is empty. */
  private slots = new Int32Array(0);
  private mask = -1;
  private used = 0;

  /** `ids`: the graph's id list, which only grows; a position's id never changes. */
  constructor(private readonly ids: readonly string[]) {}

  /** Indexes positions [0, count) of the id list, yielding every few thousand. */
  *indexSteps(count: number): Steps<void> {
    this.resize(count);
    for (let position = 0; position < count; position++) {
      if ((position & STEP_MASK) === STEP_MASK) yield;
      this.set(this.ids[position]!, position);
    }
  }

  /** The newest position given to the id, or -1. */
  get(id: string): number {
    if (this.mask < 0) return -1;
    for (let slot = hashOf(id) & this.mask; this.slots[slot] !== 0; slot = (slot + 1) & this.mask) {
      const position = this.slots[slot]! - 1;
      if (this.ids[position] === id) return position;
    }
    return -1;
  }

  /** Points the id at `position` (the id list must hold it there). */
  set(id: string, position: number): void {
    if (2 * (this.used + 1) > this.slots.length) this.resize(this.used + 1);
    let slot = hashOf(id) & this.mask;
    for (; this.slots[slot] !== 0; slot = (slot + 1) & this.mask) {
      if (this.ids[this.slots[slot]! - 1] === id) break;
    }
    if (this.slots[slot] === 0) this.used++;
    this.slots[slot] = position + 1;
  }

  /** Room for `count` ids at a load of at most one half. */
  private resize(count: number): void {
    let size = 16;
    while (size < 2 * count) size *= 2;
    if (size <= this.slots.length) return;
    const old = this.slots;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    this.used = 0;
    for (const entry of old) if (entry !== 0) this.set(this.ids[entry - 1]!, entry - 1);
  }
}
