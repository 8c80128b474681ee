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
 * has a visible version of the same event (shadowing), or it is a successor whose predecessor this chain sees
 * changed closer (the base manipulated an event the branch had already changed itself: the branch's own
 * history of that event wins, so the base's successor is not on the branch).
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

  overridden(depth: number, info: VersionInfo): boolean {
    let predecessor = info.supersedes;
    let at = depth;
    for (let step = 0; predecessor !== undefined && step < MAX_SUCCESSION; step++) {
      const found = this.visible(predecessor);
      if (!found) return false;
      if (found.depth < at) return true;
      predecessor = found.info.supersedes;
      at = found.depth;
    }
    return false;
  }

  /** Whether the version `info` of `eventId`, found at `depth`, is not on the timeline. */
  hidden(depth: number, eventId: string, info: VersionInfo | undefined): boolean {
    return this.shadowed(depth, eventId) || (info !== undefined && this.overridden(depth, info));
  }
}
