import { ChainView } from './chain-view.ts';
import { capChain, type ChainLink, type TimelineRegistry } from './timeline-registry.ts';
import type { VersionIndex } from './version-index.ts';

interface Counted {
  /** The `stamp` the count was made at. */
  stamp: string;
  count: number;
  /** The chain as it was counted, each level capped at what it had committed. */
  chain: ChainLink[];
  /** The chain's levels and their genesis loads: a count can be carried forward only while these stay. */
  shape: string;
}

/**
 * How many events happen on each timeline, from memory alone. A timeline's first count passes over every event with
 * versions above genesis on its chain; after that, a count is carried forward over the versions committed since,
 * and the events made from them (whether the chain sees a successor depends on its predecessor's versions).
 */
export class EventCounts {
  private readonly counted = new Map<string, Counted>();

  constructor(
    private readonly versions: VersionIndex,
    private readonly registry: TimelineRegistry,
  ) {}

  /** The count for `timelineId`, whose chain is `chain` and reads as `stamp` now. */
  count(timelineId: string, chain: ChainLink[], stamp: string): number {
    const known = this.counted.get(timelineId);
    if (known?.stamp === stamp) return known.count;
    const capped = capChain(this.registry, chain);
    const shape = this.shape(capped);
    const count = known && known.shape === shape && capsGrew(known.chain, capped) ? known.count + this.change(known.chain, capped) : this.countAll(capped);
    this.counted.set(timelineId, { stamp, count, chain: capped, shape });
    return count;
  }

  forget(timelineId: string): void {
    this.counted.delete(timelineId);
  }

  /** Genesis events of the chain plus, for every event with versions above genesis, what those versions change. */
  private countAll(chain: ChainLink[]): number {
    let count = 0;
    const changed = new Set<string>();
    for (const { level } of chain) {
      count += this.registry.atLevel(level)?.record.genesis_count ?? 0;
      for (const id of this.versions.eventIds(level) ?? []) changed.add(id);
    }
    const view = new ChainView(this.versions, chain);
    for (const id of changed) count += this.correction(view, id);
    return count;
  }

  /** How the count moves from `before` to `after`, two cappings of the same levels. */
  private change(before: ChainLink[], after: ChainLink[]): number {
    const touched = new Set<string>();
    after.forEach(({ level, cap }, i) => {
      for (const id of this.versions.changedBetween(level, before[i]!.cap, cap)) touched.add(id);
    });
    this.versions.addSuccessors(after, touched);
    // The count before is read through today's lists capped as they were: an event that had no version on the chain
    // then shows only its genesis marker (which happens) or nothing there, a correction of 0 either way.
    const then = new ChainView(this.versions, before);
    const now = new ChainView(this.versions, after);
    let change = 0;
    for (const id of touched) change += this.correction(now, id) - this.correction(then, id);
    return change;
  }

  /**
   * What an event with versions on the chain changes in its genesis count: minus one when a level of the chain has
   * it at genesis, plus one when the version the chain sees happens.
   */
  private correction(view: ChainView, id: string): number {
    let correction = view.chain.some(({ level }) => this.versions.hasMarker(level, id)) ? -1 : 0;
    const visible = view.visible(id);
    if (visible?.info.happens && !view.overridden(visible.depth, id, visible.info)) correction += 1;
    return correction;
  }

  private shape(chain: ChainLink[]): string {
    return chain
      .map(({ level }) => {
        const record = this.registry.atLevel(level)?.record;
        return `${level}:${record?.genesis_count ?? 0}.${record?.genesis_loads ?? 0}`;
      })
      .join('/');
  }
}

function capsGrew(before: ChainLink[], after: ChainLink[]): boolean {
  return before.length === after.length && after.every(({ cap }, i) => cap >= before[i]!.cap);
}
