/**
 * What memory keeps of each level's genesis (the events a bulk load wrote): its decoded snapshot and the search
 * index built from it, each in a byte-bounded cache. A level's entries are forgotten when its genesis changes.
 */
import { ApiError } from '../domain/errors.ts';
import { instantPoint } from '../analysis/instants.ts';
import { runInSlices } from '../analysis/time-slices.ts';
import { parseInstant } from '../time/index.ts';
import { buildGenesisIndex, genesisIndexBytes, type GenesisIndex } from './genesis-index.ts';
import { decodeSnapshotInSlices, emptySnapshot, snapshotBytes, type GenesisSnapshot } from './genesis-snapshot.ts';
import { decodeRecord } from './event-codec.ts';
import { chunkKey, Tag, versionKey } from './keys.ts';
import { MeteredCache, type CacheCounts } from './metered-cache.ts';
import type { OrderedKeyValueStore } from './ordered-kv.ts';
import type { StoredTimeline } from './timeline-registry.ts';

export interface GenesisLevelsOptions {
  /** False: no in-memory search indexes; searches read the store's index. */
  indexes?: boolean;
  /** Bytes the cache of search indexes holds (default 160 MiB). */
  indexCacheBytes?: number;
}

interface IndexEntry {
  /** The level's bulk loads when it was built: another makes it stale. */
  loads: number;
  built: Promise<GenesisIndex | undefined>;
  /** Once built; undefined also where the level's instants are beyond an index's range or the build failed. */
  index?: GenesisIndex;
}

/** Two 10^6-event snapshots. */
const SNAPSHOT_CACHE_BYTES = 160 * 1024 * 1024;
/** Two 10^6-event genesis indexes. */
const INDEX_CACHE_BYTES = 160 * 1024 * 1024;

export class GenesisLevels {
  private readonly snapshots = new MeteredCache<number, Promise<GenesisSnapshot>>('genesis_snapshot', SNAPSHOT_CACHE_BYTES);
  private readonly indexes: MeteredCache<number, IndexEntry>;
  private readonly indexBudget: number;
  /** Levels whose index has been built, for which genesis loads, and whether the cache could hold it. */
  private readonly builtBefore = new Map<number, { loads: number; kept: boolean }>();
  /** Moved by `clear`: a build begun before it is not recorded in `builtBefore`, which describes another database. */
  private generation = 0;

  /** `recordAt`: the timeline record that owns a level now. */
  constructor(
    private readonly kv: OrderedKeyValueStore,
    private readonly recordAt: (level: number) => StoredTimeline | undefined,
    private readonly options: GenesisLevelsOptions = {},
  ) {
    this.indexBudget = options.indexCacheBytes ?? INDEX_CACHE_BYTES;
    this.indexes = new MeteredCache('genesis_index', this.indexBudget);
  }

  /** The level's genesis snapshot, read from its chunks the first time. */
  snapshot(level: number): Promise<GenesisSnapshot> {
    let snapshot = this.snapshots.get(level);
    if (!snapshot) {
      snapshot = (async () => {
        const chunks = this.recordAt(level)?.snapshot_chunks ?? 0;
        if (chunks === 0) return emptySnapshot();
        const parts = await this.kv.getMany(Array.from({ length: chunks }, (_, i) => chunkKey(level, i)));
        if (parts.some((part) => !part)) throw new ApiError('data_loss', `genesis snapshot of level ${level} is incomplete`);
        const decoded = await decodeSnapshotInSlices(parts as Uint8Array[]);
        if (decoded.rounded) await this.readExactTimes(level, decoded);
        return decoded;
      })();
      this.snapshots.setPending(level, snapshot, snapshot, snapshotBytes);
    }
    return snapshot;
  }

  /** A snapshot's rounded times (`GenesisSnapshot.rounded`) made exact from the genesis versions they stand for. */
  private async readExactTimes(level: number, snapshot: GenesisSnapshot): Promise<void> {
    const rounded = snapshot.rounded!;
    const records = await this.kv.getMany(rounded.map((i) => versionKey(Tag.version, level, snapshot.ids[i]!, 0)));
    rounded.forEach((i, k) => {
      const bytes = records[k];
      if (!bytes) throw new ApiError('data_loss', `genesis version of event ${snapshot.ids[i]} on level ${level} is missing`);
      const time = parseInstant(decodeRecord(bytes).time);
      const point = instantPoint(time.seconds, time.nanos);
      snapshot.seconds[i] = point.seconds;
      snapshot.nanos[i] = point.nanos;
    });
    delete snapshot.rounded;
  }

  /** The snapshot held for the level, without reading one or counting a use. */
  heldSnapshot(level: number): Promise<GenesisSnapshot> | undefined {
    return this.snapshots.peek(level);
  }

  /**
   * Starts building the level's search index if none is held, and resolves once it is built. A search waits for
   * the first build for a level's genesis instead of reading the store's index meanwhile: such a read costs a search
   * on a large genesis up to a hundred times what the index does, and under load those reads took the CPU the build
   * needed (docs/performance.md, "Searches: waiting for the genesis index"). A rebuild of an index the cache
   * evicted is not waited for, so that levels taking turns in the cache do not make every search wait. A level
   * whose build failed, or whose index is larger than the cache's whole budget, is searched on the store's index
   * until its genesis changes.
   */
  indexSoon(level: number): Promise<void> | undefined {
    const record = this.recordAt(level);
    if (this.options.indexes === false || !record || record.loading || record.genesis_count === 0) return undefined;
    const loads = record.genesis_loads ?? 0;
    const before = this.builtBefore.get(level);
    const rebuild = before?.loads === loads;
    if (rebuild && !before.kept) return undefined;
    let entry = this.indexes.get(level);
    if (!entry || entry.loads !== loads) {
      const generation = this.generation;
      const built = this.snapshot(level)
        .then((snapshot) => runInSlices(buildGenesisIndex(snapshot)))
        .catch(() => undefined);
      const building: IndexEntry = { loads, built };
      void built.then((index) => {
        building.index = index;
        if (index && generation === this.generation) this.builtBefore.set(level, { loads, kept: genesisIndexBytes(index) <= this.indexBudget });
      });
      this.indexes.setPending(level, building, built, (index) => (index ? genesisIndexBytes(index) : 1));
      entry = building;
    }
    return entry.index || rebuild ? undefined : entry.built.then(() => undefined);
  }

  /** The level's search index if one is built for its current genesis. */
  readyIndex(level: number): GenesisIndex | undefined {
    const entry = this.indexes.peek(level);
    return entry && entry.loads === (this.recordAt(level)?.genesis_loads ?? 0) ? entry.index : undefined;
  }

  forget(level: number): void {
    this.snapshots.delete(level);
    this.indexes.delete(level);
    this.builtBefore.delete(level);
  }

  clear(): void {
    this.generation++;
    this.snapshots.clear();
    this.indexes.clear();
    this.builtBefore.clear();
  }

  counts(): CacheCounts[] {
    return [this.snapshots.counts(), this.indexes.counts()];
  }
}
