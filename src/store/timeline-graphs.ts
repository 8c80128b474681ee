/**
 * Each timeline's causal graph, kept between reads and brought up to date commit by commit (docs/performance.md,
 * "The causal graph between writes"): a read applies the versions committed on the timeline's chain since the read
 * before, a few per write, and builds the graph afresh (in slices of a few ms, the request thread serves others in
 * between) only the first time, after a bulk load or a reload of memory, or once a quarter of its nodes are gone.
 */
import { ApiError } from '../domain/errors.ts';
import { TimeSlicer, runInSlices } from '../analysis/time-slices.ts';
import type { CausalGraph } from '../analysis/causal-graph.ts';
import { builtGraphSteps, concatSnapshotSteps } from './causal-graph-builder.ts';
import { CausalGraphCache } from './causal-graph-cache.ts';
import { ChainView } from './chain-view.ts';
import { decodeRecord } from './event-codec.ts';
import type { GenesisLevels } from './genesis-levels.ts';
import { emptySnapshot } from './genesis-snapshot.ts';
import { Tag, versionKey } from './keys.ts';
import { LiveCausalGraph } from './live-causal-graph.ts';
import type { CacheCounts } from './metered-cache.ts';
import type { OrderedKeyValueStore } from './ordered-kv.ts';
import type { ChainLink } from './timeline-registry.ts';
import type { EventRecord } from './types.ts';
import type { VersionIndex } from './version-index.ts';

/** A version of an event: where it lives. */
interface Version {
  level: number;
  lsn: number;
}

const versionText = ({ level, lsn }: Version): string => `${level}:${lsn}`;

/** A timeline's causal graph as kept between reads, with what it was brought up to. */
interface KeptGraph {
  live: LiveCausalGraph;
  /** The read chain it stands for: every level capped at the LSN applied so far. */
  chain: ChainLink[];
  /** The genesis snapshots it was built from: a bulk load replaces them. */
  sources: readonly unknown[];
  versions: VersionIndex;
  /** The version of every event the graph holds a record of. */
  known: Map<string, string>;
  readonly bytes: number;
}

export class TimelineGraphs {
  private readonly kept = new CausalGraphCache<KeptGraph>();

  /** `versions`: the store's version index now (a reload of memory replaces it, and every kept graph with it). */
  constructor(
    private readonly kv: OrderedKeyValueStore,
    private readonly versions: () => VersionIndex,
    private readonly genesis: GenesisLevels,
  ) {}

  /**
   * The graph of a timeline read through `chain`. Views are shared by every reader (their arrays are in shared
   * memory) and must not be modified. An overlay read applies the overlay to the same graph and takes it back.
   * A reader calls `release` once done with the arrays, so that they can be reused for a later view.
   */
  async read(
    timelineId: string,
    chain: ChainLink[],
    genesisLevels: number[],
    overlay: readonly EventRecord[],
  ): Promise<{ graph: CausalGraph; release: () => void }> {
    const entry = await this.kept.update(timelineId, async (kept) =>
      kept && (await this.update(kept, chain, genesisLevels)) ? kept : this.build(chain, genesisLevels),
    );
    const graph = overlay.length > 0 ? entry.live.overlaid(overlay) : entry.live.view();
    const release = entry.live.hold(graph);
    // A copy of the object (not of its arrays): the pool tells concurrent analyses apart by object.
    return { graph: { ...graph }, release };
  }

  forget(timelineId: string): void {
    this.kept.forget(timelineId);
  }

  counts(): CacheCounts {
    return this.kept.counts();
  }

  private async build(chain: ChainLink[], genesisLevels: number[]): Promise<KeptGraph> {
    const versionIndex = this.versions();
    const sources = genesisLevels.map((level) => this.genesis.snapshot(level));
    const genesis = sources.length === 0 ? emptySnapshot() : await runInSlices(concatSnapshotSteps(await Promise.all(sources)));
    const ids = new Set<string>();
    for (const { level } of chain) {
      for (const id of versionIndex.eventIds(level) ?? []) ids.add(id);
    }
    const versions = await this.changedVersions(chain, ids);
    const records = await this.changedRecords(versions);
    const built = await runInSlices(builtGraphSteps(genesis, records));
    const live = await runInSlices(LiveCausalGraph.fromBuildSteps(built, genesis, records));
    // Only once the live graph has its own copy: V8 copies a frozen array one element at a time (28 ms for 10^6 ids, 5 unfrozen).
    Object.freeze(built.graph.eventIds);
    const known = new Map([...versions].map(([id, version]) => [id, versionText(version)]));
    return { live, chain, sources, versions: versionIndex, known, get bytes() { return live.bytes; } };
  }

  /**
   * Brings a kept graph up to `chain` with the versions committed on it since (what they change, not the
   * timeline's size); false when the graph must be built again instead (a bulk load, a reload of memory).
   */
  private async update(kept: KeptGraph, chain: ChainLink[], genesisLevels: number[]): Promise<boolean> {
    const versionIndex = this.versions();
    if (kept.versions !== versionIndex || kept.live.wantsRebuild) return false;
    const sources = genesisLevels.map((level) => this.genesis.heldSnapshot(level));
    if (sources.length !== kept.sources.length || sources.some((source, i) => source !== kept.sources[i])) return false;
    if (chain.length !== kept.chain.length || chain.some(({ level, cap }, i) => level !== kept.chain[i]!.level || cap < kept.chain[i]!.cap)) {
      return false;
    }
    const written = new Set<string>();
    chain.forEach(({ level, cap }, i) => {
      for (const id of versionIndex.changedBetween(level, kept.chain[i]!.cap, cap)) written.add(id);
    });
    kept.chain = chain;
    if (written.size === 0) return true;
    const candidates = new Set(written);
    versionIndex.addSuccessors(chain, candidates);
    const versions = await this.changedVersions(chain, candidates);
    const changedNow = new Map<string, Version>();
    for (const id of candidates) {
      const version = versions.get(id);
      // Seen at genesis again, or no more: never by a write (versions are only added); build afresh rather than guess.
      if (!version) {
        if (kept.known.has(id)) return false;
        continue;
      }
      if (kept.known.get(id) !== versionText(version)) changedNow.set(id, version);
    }
    kept.live.apply(await this.changedRecords(changedNow));
    for (const [id, version] of changedNow) kept.known.set(id, versionText(version));
    return true;
  }

  /** Where the chain sees a version above genesis of each of `ids` (one seen at genesis, or hidden, is left out). */
  private async changedVersions(chain: ChainLink[], ids: Iterable<string>): Promise<Map<string, Version>> {
    const slicer = new TimeSlicer();
    const view = new ChainView(this.versions(), chain);
    const versions = new Map<string, Version>();
    let steps = 0;
    for (const id of ids) {
      if ((++steps & 1023) === 0 && slicer.due()) await slicer.pause();
      const visible = view.visible(id);
      if (!visible || visible.info.lsn === 0 || view.overridden(visible.depth, id, visible.info)) continue;
      versions.set(id, { level: chain[visible.depth]!.level, lsn: visible.info.lsn });
    }
    return versions;
  }

  /** The records of those versions. */
  private async changedRecords(versions: Map<string, Version>): Promise<Map<string, EventRecord>> {
    const slicer = new TimeSlicer();
    const toRead = [...versions];
    const read = await this.kv.getMany(toRead.map(([id, { level, lsn }]) => versionKey(Tag.version, level, id, lsn)));
    const changed = new Map<string, EventRecord>();
    for (let i = 0; i < toRead.length; i++) {
      if ((i & 255) === 255 && slicer.due()) await slicer.pause();
      const [id, { lsn }] = toRead[i]!;
      const bytes = read[i];
      if (!bytes) throw new ApiError('data_loss', `version ${lsn} of event "${id}" is missing`);
      changed.set(id, decodeRecord(bytes));
    }
    return changed;
  }
}
