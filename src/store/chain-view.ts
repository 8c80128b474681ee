import type { ChainLink } from './timeline-registry.ts';
import { visibleVersion, type VersionIndex, type VersionInfo } from './version-index.ts';

export interface VisibleVersion {
  /** Position in the chain: 0 is the timeline itself. */
  depth: number;
  info: VersionInfo;
}

const MAX_SUCCESSION = 10_000;

/**
 * Visibility through a read chain, from memory alone. A version at depth d is visible unless a closer level
 * has a visible version of the same event (shadowing), or it is a successor the chain overrides (the base
 * manipulated an event after the branch had changed it itself: the branch's own history of that event
 * wins, so the base's successor is not on the branch).
 */
export class ChainView {
  constructor(
    private readonly versions: VersionIndex,
    readonly chain: readonly ChainLink[],
  ) {}

  /** The closest visible version of an event with versions above genesis; undefined for untouched genesis events. */
  visible(eventId: string): VisibleVersion | undefined {
    for (let depth = 0; depth < this.chain.length; depth++) {
      const link = this.chain[depth]!;
      const info = visibleVersion(this.versions.list(link.level, eventId), link.cap);
      if (info) return { depth, info };
    }
    return undefined;
  }

  shadowed(depth: number, eventId: string): boolean {
    for (let closer = 0; closer < depth; closer++) {
      const link = this.chain[closer]!;
      if (visibleVersion(this.versions.list(link.level, eventId), link.cap)) return true;
    }
    return false;
  }

  /**
   * A successor is overridden when the chain sees its predecessor (following `supersedes`) at a closer
   * level and any level closer than the successor took its own version of the predecessor before the
   * successor was created: the base changed an event after that branch had changed it itself, and what
   * a branch hides its own branches never see, even if they later write the predecessor themselves.
   * (Successors older than a branch's own version are history the branch already saw, e.g. a manipulation
   * reverted before the branch changed the event; an alternate's frozen levels are all older than its
   * own writes.)
   */
  overridden(depth: number, eventId: string, info: VersionInfo): boolean {
    let successor = eventId;
    let successorDepth = depth;
    let predecessor = info.supersedes;
    for (let step = 0; predecessor !== undefined && step < MAX_SUCCESSION; step++) {
      const found = this.visible(predecessor);
      if (!found) return false;
      if (found.depth < successorDepth) return this.ownedBefore(successorDepth, predecessor, this.bornAt(successor));
      successor = predecessor;
      successorDepth = found.depth;
      predecessor = found.info.supersedes;
    }
    return false;
  }

  /** Whether a level closer than `depth` wrote its own version of the event before LSN `lsn`. */
  private ownedBefore(depth: number, eventId: string, lsn: number): boolean {
    for (let closer = 0; closer < depth; closer++) {
      // LSN 0 is a genesis marker, not a write of the branch's own.
      const first = this.versions.list(this.chain[closer]!.level, eventId)?.find((version) => version.lsn > 0);
      if (first && first.lsn < lsn) return true;
    }
    return false;
  }

  /** LSN of an event's first version anywhere in the chain: when it was created. */
  private bornAt(eventId: string): number {
    let born = Infinity;
    for (const { level } of this.chain) {
      const first = this.versions.list(level, eventId)?.[0]?.lsn;
      if (first !== undefined && first < born) born = first;
    }
    return born === Infinity ? 0 : born;
  }

  /** Whether the version `info` of `eventId`, found at `depth`, is not on the timeline. */
  hidden(depth: number, eventId: string, info: VersionInfo | undefined): boolean {
    return this.shadowed(depth, eventId) || (info !== undefined && this.overridden(depth, eventId, info));
  }
}
