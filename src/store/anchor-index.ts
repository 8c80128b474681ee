import type { AnchorRecord } from './types.ts';
import { compareUtf8 } from './utf8-order.ts';

/** One anchor written to a level (`record`) or removed from it (no `record`). */
export interface AnchorChange {
  level: number;
  anchorId: string;
  record?: AnchorRecord;
}

/**
 * Each level's anchors, in memory from the first time they are listed: every paradox check lists all of its
 * timeline's anchors, and reading and decoding them from storage each time made a check slower the more
 * anchors there were. Commits apply their anchor changes here, this node's own and, on a shared store, the
 * other nodes' (from their change notes). The list keeps storage's order (anchor ids by their UTF-8 bytes), so
 * answers do not depend on when it was read. Memory grows with the anchors listed, a few hundred bytes each.
 */
export class AnchorIndex {
  /** Per level, its anchors in storage order. */
  private readonly levels = new Map<number, AnchorRecord[]>();
  /**
   * Per level, a frozen copy of its list handed to every caller until the next change: callers share one array,
   * and one that sees the same array again knows nothing changed. Copying per call made a large-object copy of
   * every anchor for every paradox check.
   */
  private readonly shared = new Map<number, readonly AnchorRecord[]>();
  /** Counts every change: a list read from storage while one was applied may lack it, and is not kept. */
  private generation = 0;

  /** The level's anchors, read by `load` the first time. The list and its records are frozen: callers share them. */
  async list(level: number, load: () => Promise<AnchorRecord[]>): Promise<readonly AnchorRecord[]> {
    const held = this.levels.get(level);
    if (held) {
      let copy = this.shared.get(level);
      if (!copy) this.shared.set(level, (copy = Object.freeze(held.slice())));
      return copy;
    }
    const generation = this.generation;
    const records = Object.freeze((await load()).map((record) => Object.freeze(record)));
    if (generation === this.generation && !this.levels.has(level)) {
      this.levels.set(level, records.slice());
      this.shared.set(level, records);
    }
    return records;
  }

  /** How many anchors the level has; read by `load` the first time, as `list` does. */
  async count(level: number, load: () => Promise<AnchorRecord[]>): Promise<number> {
    return this.levels.get(level)?.length ?? (await this.list(level, load)).length;
  }

  apply(changes: readonly AnchorChange[]): void {
    for (const { level, anchorId, record } of changes) {
      this.generation++;
      const held = this.levels.get(level);
      if (!held) continue;
      this.shared.delete(level);
      const at = position(held, anchorId);
      const present = at < held.length && held[at]!.anchor_id === anchorId;
      if (record) held.splice(at, present ? 1 : 0, Object.freeze(record));
      else if (present) held.splice(at, 1);
    }
  }

  dropLevel(level: number): void {
    this.generation++;
    this.levels.delete(level);
    this.shared.delete(level);
  }

  clear(): void {
    this.generation++;
    this.levels.clear();
    this.shared.clear();
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
