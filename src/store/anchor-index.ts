import { PinOrder } from './pin-order.ts';
import type { AnchorPin } from '../analysis/causal-graph.ts';
import type { AnchorRecord } from './types.ts';
import { compareUtf8 } from './utf8-order.ts';

/** One anchor written to a level (`record`) or removed from it (no `record`). */
export interface AnchorChange {
  level: number;
  anchorId: string;
  record?: AnchorRecord;
}

interface LevelAnchors {
  /** In storage order: anchor ids by their UTF-8 bytes, so answers do not depend on when the list was read. */
  records: AnchorRecord[];
  /**
   * A frozen copy of `records` handed to every caller until the next change: callers share one array, and one
   * that sees the same array again knows nothing changed. Copying per call made a large-object copy of every
   * anchor for every paradox check.
   */
  shared?: readonly AnchorRecord[];
  /** The same anchors as pins in instant order, from the first time they are asked for. */
  pins?: PinOrder;
}

/**
 * Each level's anchors, in memory from the first time they are listed: every paradox check lists all of its
 * timeline's anchors, and reading and decoding them from storage each time made a check slower the more
 * anchors there were. Commits apply their anchor changes here, this node's own and, on a shared store, the
 * other nodes' (from their change notes). Memory grows with the anchors listed, a few hundred bytes each.
 */
export class AnchorIndex {
  private readonly levels = new Map<number, LevelAnchors>();
  /** Counts every change: a list read from storage while one was applied may lack it, and is not kept. */
  private changes = 0;

  /** Moves on with every change to any level's anchors. */
  get generation(): number {
    return this.changes;
  }

  /** The level's anchors, read by `load` the first time. The list and its records are frozen: callers share them. */
  async list(level: number, load: () => Promise<AnchorRecord[]>): Promise<readonly AnchorRecord[]> {
    const held = this.levels.get(level);
    if (held) return (held.shared ??= Object.freeze(held.records.slice()));
    const generation = this.changes;
    const records = (await load()).map((record) => Object.freeze(record));
    const shared = Object.freeze(records.slice());
    if (generation === this.changes && !this.levels.has(level)) this.levels.set(level, { records, shared });
    return shared;
  }

  /** How many anchors the level has; read by `load` the first time, as `list` does. */
  async count(level: number, load: () => Promise<AnchorRecord[]>): Promise<number> {
    return this.levels.get(level)?.records.length ?? (await this.list(level, load)).length;
  }

  /** The level's anchors as pins in instant order (read by `load` the first time, as `list` does). */
  async pins(level: number, load: () => Promise<AnchorRecord[]>): Promise<readonly AnchorPin[]> {
    if (!this.levels.has(level)) {
      const records = await this.list(level, load);
      // Read while a change was applied: not kept, so its pins are not kept either.
      if (!this.levels.has(level)) return new PinOrder(records).current();
    }
    const held = this.levels.get(level)!;
    return (held.pins ??= new PinOrder(held.records)).current();
  }

  apply(changes: readonly AnchorChange[]): void {
    for (const { level, anchorId, record } of changes) {
      this.changes++;
      const held = this.levels.get(level);
      if (!held) continue;
      delete held.shared;
      const { records, pins } = held;
      const at = position(records, anchorId);
      const present = at < records.length && records[at]!.anchor_id === anchorId;
      if (present) pins?.remove(records[at]!);
      if (record) {
        const frozen = Object.freeze(record);
        records.splice(at, present ? 1 : 0, frozen);
        pins?.add(frozen);
      } else if (present) records.splice(at, 1);
    }
  }

  dropLevel(level: number): void {
    this.changes++;
    this.levels.delete(level);
  }

  clear(): void {
    this.changes++;
    this.levels.clear();
  }
}

/** Where `anchorId` is in `records`, or would go. */
function position(records: readonly AnchorRecord[], anchorId: string): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareUtf8(records[middle]!.anchor_id, anchorId) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
