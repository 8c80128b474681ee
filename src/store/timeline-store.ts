/**
 * The copy-on-write timeline store over any ordered key-value backend (design: docs/storage.md). Timelines
 * are levels; a branch writes only its own versions and reads fall through its chain. Every write runs in its
 * timeline's queue and is one durable batch; every read caps each level at the LSN it had committed when the
 * read started.
 */
import type { AnchorPin } from '../analysis/causal-graph.ts';
import { instantPoint } from '../analysis/instants.ts';
import { PRIMARY_TIMELINE_ID } from '../domain/timelines.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { checkManipulable, eventNotFound, newEventIdTaken, newEventRecord, planManipulation, planRevert } from '../domain/event-rules.ts';
import { encodeInstantKey, formatInstant, nowInstant, parseInstant, type Instant } from '../time/index.ts';
import { ChainView } from './chain-view.ts';
import { searchChain } from './chain-search.ts';
import { decodeRecord, decodeSummary, encodeRecord, encodeSummary, summarise } from './event-codec.ts';
import { EventCounts } from './event-counts.ts';
import { GenesisLevels } from './genesis-levels.ts';
import { GenesisLoadBatch } from './genesis-load-batch.ts';
import { encodeSnapshotChunks, GenesisAccumulator, type GenesisSnapshot } from './genesis-snapshot.ts';
import { checkId, newEventId, newTimelineId } from './ids.ts';
import { chunkKey, LEVEL_TAGS, levelKey, levelPrefix, parseVersionKey, prefixEnd, tagKey, Tag, utf8, versionKey } from './keys.ts';
import type { OrderedKeyValueStore, PutOp, WriteOp } from './ordered-kv.ts';
import { locationWords, sharedWordsCounts } from './location-words.ts';
import { LocalCommitLog, type CommitLog, type LogHead } from './commit-log.ts';
import { decodeNote, encodeNote, type ChangeNote } from './change-note.ts';
import { AnchorIndex, type AnchorChange } from './anchor-index.ts';
import { pinOf } from './pin-order.ts';
import { FreshCheck } from './fresh-check.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import { SearchPageCache } from './search-cache.ts';
import type { CacheCounts } from './metered-cache.ts';
import { capChain, TimelineRegistry, type ChainLink, type StoredTimeline, type TimelineState } from './timeline-registry.ts';
import {
  type AnchorRecord, type BulkLoadOptions, type CausalGraphOptions, type CausalGraphRead, type EventRecord, type GenesisEvent,
  type ManipulationProposal, type ManipulationResult, type NewEvent, type NewTimeline, type Outcome, type Precheck, type RevertResult, type SearchPage,
  type SearchQuery, type TimelineRecord, type TimelineStore,
} from './types.ts';
import { VersionIndex, visibleVersion, type VersionInfo } from './version-index.ts';
import { TimelineGraphs } from './timeline-graphs.ts';
import { VersionReader, versionRefKey } from './version-reader.ts';
import { WriterQueues } from './writer-queues.ts';


export interface TimelineStoreOptions {
  /** Description and owner of `primary` when the store creates it on first open. */
  primaryDescription?: string;
  primaryOwner?: string;
  /**
   * Genesis events are searched in an in-memory index built on first use (default); false: always on the
   * store's index (the reference the in-memory one is tested against).
   */
  genesisIndexes?: boolean;
  /**
   * Start building the search indexes of primary's genesis as the store opens, in the background, so that they are
   * ready before the first searches come (a server); by default a level's index is built on its first search.
   */
  indexPrimaryAtOpen?: boolean;
  /** Bytes held by the cache of recently served search pages (default 32 MiB; 0 turns it off). */
  searchCacheBytes?: number;
  /** Bytes held by the cache of event versions read (default 64 MiB; 0 turns it off). */
  versionCacheBytes?: number;
  /** Bytes held by the cache of genesis search indexes (default 160 MiB: two of 10^6 events). */
  genesisIndexCacheBytes?: number;
  /** How long deleted timelines' ranges wait, gathering the next deletions, before they are compacted (default 5 s). */
  freedCompactionDelayMs?: number;
}

const DEFAULT_FREED_COMPACTION_DELAY_MS = 5_000;

/** A check run before its write's turn (`checkAhead`): what it read, and its verdict. */
type CheckedAhead = { stamp: string; level: number; lsn: number; proposal: ManipulationProposal } & ({ refused: false } | { refused: true; refusal: unknown });

interface Resolved {
  level: number;
  lsn: number;
  record: EventRecord;
}

/** What a commit writes and changes in memory: `apply` runs once it is durable, `undo` if it is not. */
interface Change<T> {
  ops: WriteOp[];
  note: ChangeNote;
  result: T;
  apply?: () => void;
  undo?: () => void;
}

const SNAPSHOT_CHUNK_BYTES = 4 * 1024 * 1024;
const DEFAULT_BULK_BATCH = 5000;
const SEARCH_CACHE_BYTES = 32 * 1024 * 1024;
const EMPTY_NOTE = new Uint8Array();

const isoNow = (): string => formatInstant(nowInstant());

function failed(message: string): ApiError {
  return new ApiError('failed_precondition', message);
}

export class CopyOnWriteTimelineStore implements TimelineStore {
  private registry = new TimelineRegistry();
  private versions = new VersionIndex();
  private readonly queues = new WriterQueues();
  private readonly log: CommitLog;
  /** The newest commit whose changes memory holds (shared stores only). */
  private seen = 0;
  /** The numbering `seen` is in (`LogHead`). */
  private seenEpoch = '';
  private readonly fresh = new FreshCheck(() => this.catchUp());
  /** Commits under way, by timeline: `close` waits for them, and so does a write that is checked first. */
  private readonly committing = new Map<string, Set<Promise<unknown>>>();
  /** Manipulations' checks running ahead of their turn (`checkAhead`), by timeline: `close` waits for them. */
  private readonly checkingAhead = new Map<string, Promise<unknown>>();
  /** The catch-up under way, or the last one (`catchUp`). */
  private caughtUp: Promise<void> = Promise.resolve();
  /** Counts the loads of the whole state into memory. */
  private loads = 0;
  /** The making of `primary` under way after a reload (`keepPrimary`). */
  private makingPrimary: Promise<void> | undefined;
  /** Versions built by writes whose batch is not yet durable, for the writes that build on them. */
  private readonly inFlight = new Map<string, EventRecord>();
  private readonly genesis: GenesisLevels;
  private readonly graphs: TimelineGraphs;
  private eventCounts = new EventCounts(this.versions, this.registry);
  private readonly anchors = new AnchorIndex();
  private readonly searchCache: SearchPageCache;
  private readonly reader: VersionReader;
  private readonly background = new Set<Promise<void>>();
  /** Deleted levels whose ranges wait for a compaction pass, the pass due, and the pass under way (`compactFreed`). */
  private readonly freedLevels: number[] = [];
  private compactionDue: NodeJS.Timeout | undefined;
  private compacting: Promise<void> | undefined;
  private opened = false;
  private closing = false;

  /** `log`: a shared one where other nodes write the same store (default: this process alone writes it). */
  constructor(
    private readonly kv: OrderedKeyValueStore,
    private readonly options: TimelineStoreOptions = {},
    log?: CommitLog,
  ) {
    this.searchCache = new SearchPageCache(options.searchCacheBytes ?? SEARCH_CACHE_BYTES);
    this.log = log ?? new LocalCommitLog(kv);
    this.reader = new VersionReader(kv, options.versionCacheBytes);
    this.genesis = new GenesisLevels(kv, (level) => this.registry.atLevel(level)?.record, {
      indexes: options.genesisIndexes,
      indexCacheBytes: options.genesisIndexCacheBytes,
    });
    this.graphs = new TimelineGraphs(kv, () => this.versions, this.genesis);
  }

  // ---------------------------------------------------------------- lifecycle

  async open(): Promise<void> {
    if (this.opened) return;
    await this.kv.open();
    // Commits made while the state loads are replayed from here.
    ({ lsn: this.seen, epoch: this.seenEpoch } = await this.log.head());
    const tombstones = await this.loadState();
    await this.log.start(Math.max(this.versions.maxLsn(), this.registry.highestCap()));
    await this.sync();
    if (!this.registry.has(PRIMARY_TIMELINE_ID)) await this.createPrimary();
    for (const state of this.registry.all()) {
      if (state.record.loading && !(await this.log.loadHeld(state.record.level))) await this.recoverInterruptedLoad(state);
    }
    this.opened = true;
    for (const level of tombstones) this.track(this.clearLevel(level));
    const primary = this.registry.live(PRIMARY_TIMELINE_ID);
    if (this.options.indexPrimaryAtOpen && primary) {
      // Tracked, so that close() waits for it (about a second on 10^6 events) rather than leave it running.
      const builds = this.genesisLevels(this.readChain(primary)).map((level) => this.genesis.indexSoon(level));
      this.track(Promise.all(builds).then(() => undefined));
    }
  }

  /**
   * Timelines and version summaries into memory; returns the levels of deleted timelines not yet cleared. The new
   * state is built aside and takes the old one's place in one step, so that no read sees it half loaded.
   */
  private async loadState(): Promise<number[]> {
    const registry = new TimelineRegistry();
    const versions = new VersionIndex();
    for (const [, value] of await this.kv.entries({ gte: tagKey(Tag.timeline), lt: prefixEnd(tagKey(Tag.timeline)) })) {
      registry.add(decodeRecord<StoredTimeline>(value));
    }
    const tombstones = (await this.kv.keys({ gte: tagKey(Tag.tombstone), lt: prefixEnd(tagKey(Tag.tombstone)) })).map((key) =>
      Buffer.from(key).readUInt32BE(1),
    );
    for (const level of tombstones) registry.reserveLevel(level);
    await this.scan(tagKey(Tag.summary), (key, value) => {
      const { level, eventId, lsn } = parseVersionKey(key);
      if (registry.atLevel(level)) versions.add(level, eventId, decodeSummary(lsn, value));
    });
    for (const state of registry.all()) state.committedLsn = versions.newestLsn(state.record.level);
    this.registry = registry;
    this.versions = versions;
    this.eventCounts = new EventCounts(versions, registry);
    this.genesis.clear();
    this.anchors.clear();
    this.searchCache.clear();
    this.reader.clear();
    this.loads++;
    return tombstones;
  }

  /** Brings memory up to the newest commit of a shared store: every read and write starts here. */
  private sync(): Promise<void> {
    return this.log.shared ? this.fresh.run().then(() => this.keepPrimary()) : Promise.resolve();
  }

  /** Makes `primary` where a reload found a database without it (one `tms migrate` made under a running node). */
  private keepPrimary(): Promise<void> | undefined {
    if (!this.opened || this.registry.has(PRIMARY_TIMELINE_ID)) return undefined;
    this.makingPrimary ??= this.createPrimary().finally(() => {
      this.makingPrimary = undefined;
    });
    return this.makingPrimary;
  }

  /**
   * `head`: the newest commit (its LSN and epoch) when the caller knows it already. One catch-up runs at a time: a commit's
   * and a reader's running together could reload the state while the other replays into it, or reload it twice.
   */
  private catchUp(head?: LogHead): Promise<void> {
    const run = this.caughtUp.then(() => this.catchUpNow(head));
    this.caughtUp = run.catch(() => undefined);
    return run;
  }

  private async catchUpNow(head?: LogHead): Promise<void> {
    head ??= await this.log.head();
    if (head.epoch !== this.seenEpoch) {
      // Another database than the one memory was loaded from: its LSNs say nothing about what memory holds. Taken
      // as seen only once loaded, so that a load that fails is tried again by the next catch-up.
      await this.loadState();
      this.seen = head.lsn;
      this.seenEpoch = head.epoch;
      return;
    }
    if (head.lsn <= this.seen) return;
    const commits = await this.log.since(this.seen);
    if (!commits) {
      // The log no longer reaches back to what memory holds: load the whole state again.
      await this.loadState();
      this.seen = Math.max(this.seen, head.lsn);
      return;
    }
    for (const commit of commits) {
      if (commit.lsn <= this.seen) continue;
      this.replay(decodeNote(commit.note));
      this.seen = commit.lsn;
    }
    this.seen = Math.max(this.seen, head.lsn);
  }

  /** Applies another node's commit to memory (or this node's own again: applying twice changes nothing). */
  private replay(note: ChangeNote): void {
    for (const record of note.timelines ?? []) this.adopt(record);
    for (const { timeline_id: timelineId, level } of note.deleted ?? []) {
      const state = this.registry.atLevel(level);
      if (state) this.forgetTimeline(state);
      this.registry.reserveLevel(level);
      this.eventCounts.forget(timelineId);
    }
    for (const { level, eventId, info } of note.versions ?? []) {
      this.versions.add(level, eventId, info);
      const state = this.registry.atLevel(level);
      if (state && info.lsn > state.committedLsn) state.committedLsn = info.lsn;
    }
    this.anchors.apply(note.anchors ?? []);
  }

  /** A timeline record as committed, new or changed. */
  private adopt(record: StoredTimeline): TimelineState {
    const state = this.registry.atLevel(record.level);
    if (!state) return this.registry.add(record);
    if (state.record.genesis_loads !== record.genesis_loads || state.record.genesis_count !== record.genesis_count) {
      this.forgetGenesis(record.level);
    }
    state.record = record;
    return state;
  }

  private forgetTimeline(state: TimelineState): void {
    const { level, timeline_id: timelineId } = state.record;
    this.registry.remove(state);
    this.versions.dropLevel(level);
    this.anchors.dropLevel(level);
    this.forgetGenesis(level);
    this.eventCounts.forget(timelineId);
    this.graphs.forget(timelineId);
  }

  /**
   * Commits one change: under a new LSN, after memory has caught up with every earlier commit (on a shared
   * store, no other node commits meanwhile). `build` may run again if the database asks for a retry.
   */
  private async commit<T>(build: (lsn: () => number) => Promise<Change<T>>, queued?: () => void): Promise<T> {
    let change: Change<T> | undefined;
    let committedAt = 0;
    try {
      const result = await this.log.commit(async (lsn, head) => {
        change?.undo?.();
        change = undefined;
        if (this.log.shared) await this.catchUp(head);
        change = await build(() => (committedAt = lsn()));
        return { ops: change.ops, note: this.log.shared ? encodeNote(change.note) : EMPTY_NOTE, result: change.result };
      }, queued);
      change?.apply?.();
      if (this.log.shared && committedAt === this.seen + 1) this.seen = committedAt;
      return result;
    } catch (error) {
      change?.undo?.();
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    // A check ahead of its write's turn queues the write once it ends.
    await Promise.allSettled(this.checkingAhead.values());
    await this.queues.drain();
    // Queues move on before their writes are durable: wait for those too.
    await Promise.allSettled([...this.committing.values()].flatMap((commits) => [...commits]));
    // A background task may start another (a finished delete starts the compaction of its ranges): wait for all.
    for (this.compactNow(); this.background.size > 0; this.compactNow()) await Promise.all([...this.background]);
    this.opened = false;
    this.closing = false;
  }

  private track(task: Promise<void>): void {
    const tracked = task.catch((error: unknown) => console.error('timeline store background task failed', error));
    this.background.add(tracked);
    void tracked.then(() => this.background.delete(tracked));
  }

  /** Every entry under `prefix`, in key order, a chunk at a time. */
  private scan(prefix: Uint8Array, each: (key: Uint8Array, value: Uint8Array) => void): Promise<void> {
    return this.kv.snapshot(async (reads) => {
      const reader = reads.reader({ gte: prefix, lt: prefixEnd(prefix) });
      try {
        for (let entries = await reader.next(4096); entries.length > 0; entries = await reader.next(4096)) {
          for (const [key, value] of entries) each(key, value);
        }
      } finally {
        await reader.close();
      }
    });
  }

  private async createPrimary(): Promise<void> {
    await this.commit(async () => {
      // Another node sharing the store may have made it first.
      if (this.registry.has(PRIMARY_TIMELINE_ID)) return { ops: [], note: {}, result: undefined };
      const record = this.primaryRecord();
      return { ops: [this.recordPut(record)], note: { timelines: [record] }, result: undefined, apply: () => this.adopt(record) };
    });
  }

  private primaryRecord(): StoredTimeline {
    return {
      timeline_id: PRIMARY_TIMELINE_ID,
      kind: 'primary',
      description: this.options.primaryDescription ?? 'The main timeline',
      base_timeline_id: '',
      variation: '',
      created_at: isoNow(),
      owner: this.options.primaryOwner ?? 'system',
      revision: 0,
      stability: 'Unknown',
      level: this.registry.nextLevel(),
      genesis_count: 0,
      snapshot_chunks: 0,
    };
  }

  private recordPut(record: StoredTimeline): WriteOp {
    return { type: 'put', key: tagKey(Tag.timeline, record.timeline_id), value: encodeRecord(record) };
  }

  // ---------------------------------------------------------------- timelines

  private live(timelineId: string): TimelineState {
    const state = this.registry.live(timelineId);
    if (!state) throw notFound('timeline', timelineId);
    return state;
  }

  private readChain(state: TimelineState): ChainLink[] {
    return capChain(this.registry, this.registry.chain(state));
  }

  /** The levels of the chain that hold a genesis (bulk-loaded events). */
  private genesisLevels(chain: ChainLink[]): number[] {
    return chain.filter(({ level }) => this.registry.hasGenesis(level)).map(({ level }) => level);
  }

  /** Changes whenever anything visible through the chain may have changed. */
  private stamp(chain: ChainLink[]): string {
    return chain
      .map(({ level, cap }) => {
        const record = this.registry.atLevel(level)?.record;
        return `${level}:${record?.revision ?? 0}:${record?.genesis_count ?? 0}.${record?.genesis_loads ?? 0}:${cap === Infinity ? '' : cap}`;
      })
      .join('/');
  }

  private publicRecord(state: TimelineState): TimelineRecord {
    const { record } = state;
    return {
      timeline_id: record.timeline_id,
      kind: record.kind,
      description: record.description,
      base_timeline_id: record.base_timeline_id,
      variation: record.variation,
      created_at: record.created_at,
      owner: record.owner,
      revision: record.revision,
      event_count: this.eventCount(state),
      stability: record.stability,
    };
  }

  private eventCount(state: TimelineState): number {
    const chain = this.registry.chain(state);
    return this.eventCounts.count(state.record.timeline_id, chain, this.stamp(chain));
  }

  async createTimeline(spec: NewTimeline): Promise<TimelineRecord> {
    if (spec.kind !== 'alternate' && spec.kind !== 'parallel') {
      throw new ApiError('invalid_argument', `a new timeline is an alternate or a parallel, not ${JSON.stringify(spec.kind)}`);
    }
    const timelineId = spec.timeline_id ?? newTimelineId();
    checkId('timeline id', timelineId);
    return this.commit(async () => {
      const base = this.live(spec.base_timeline_id);
      if (base.bulkLoading || base.record.loading) {
        throw failed(`timeline "${base.record.timeline_id}" is being bulk-loaded; branch it when the load is done`);
      }
      if (this.registry.has(timelineId)) throw new ApiError('already_exists', `timeline "${timelineId}" already exists`);
      const record = this.branchRecord(spec, timelineId, base);
      const state = this.registry.add(record, true);
      return {
        ops: [this.recordPut(record)],
        note: { timelines: [record] },
        result: state,
        undo: () => this.registry.remove(state),
        apply: () => (state.pending = false),
      };
    }).then((state) => this.publicRecord(state));
  }

  private branchRecord(spec: NewTimeline, timelineId: string, base: TimelineState): StoredTimeline {
    const record: StoredTimeline = {
      timeline_id: timelineId,
      kind: spec.kind,
      description: spec.description,
      base_timeline_id: base.record.timeline_id,
      variation: spec.variation,
      created_at: isoNow(),
      owner: spec.owner,
      revision: 0,
      stability: 'Unknown',
      level: this.registry.nextLevel(),
      genesis_count: 0,
      snapshot_chunks: 0,
    };
    if (spec.kind === 'alternate') {
      // Each level capped at its last committed batch: the one batch that may be in flight there is above it.
      record.frozen_chain = this.readChain(base).map(({ level, cap }) => [level, cap]);
    }
    return record;
  }

  async getTimeline(timelineId: string): Promise<TimelineRecord | undefined> {
    await this.sync();
    const state = this.registry.live(timelineId);
    return state && this.publicRecord(state);
  }

  async timelineOwner(timelineId: string): Promise<string | undefined> {
    await this.sync();
    return this.registry.live(timelineId)?.record.owner;
  }

  async timelinesWriting(eventId: string): Promise<string[]> {
    await this.sync();
    return this.registry
      .all()
      .filter((state) => this.versions.list(state.record.level, eventId)?.some((version) => version.lsn > 0))
      .map((state) => state.record.timeline_id);
  }

  async listTimelines(): Promise<TimelineRecord[]> {
    await this.sync();
    return this.registry.all().map((state) => this.publicRecord(state));
  }

  /** Every full paradox check sets its result: one it already has (the usual case) costs no synced write. */
  async setStability(timelineId: string, stability: string): Promise<void> {
    await this.sync();
    if (this.latest(this.live(timelineId)).stability === stability) return;
    await this.write(timelineId, async (state) => {
      const record = { ...this.latest(state), stability };
      return { ops: [this.recordPut(record)], note: { timelines: [record] }, result: undefined, ...this.recordChange(state, record) };
    });
  }

  async deleteTimeline(timelineId: string): Promise<void> {
    if (timelineId === PRIMARY_TIMELINE_ID) throw failed('timeline "primary" cannot be deleted');
    const level = await this.write(timelineId, async (state) => {
      const children = this.registry.children(timelineId).map((child) => `"${child.record.timeline_id}"`);
      if (children.length > 0) {
        throw failed(`timeline "${timelineId}" has branches (${children.join(', ')}); delete them first`);
      }
      if (state.bulkLoading || state.record.loading) throw failed(`timeline "${timelineId}" is being bulk-loaded`);
      state.deleting = true;
      const { level } = state.record;
      try {
        const anchorKeys = await this.kv.keys({ gte: levelPrefix(Tag.anchor, level), lt: prefixEnd(levelPrefix(Tag.anchor, level)) });
        const ops: WriteOp[] = [
          { type: 'del', key: tagKey(Tag.timeline, timelineId) },
          { type: 'put', key: levelPrefix(Tag.tombstone, level), value: utf8(timelineId) },
          ...anchorKeys.map((key): WriteOp => ({ type: 'del', key: Buffer.concat([Buffer.from([Tag.anchorOwner]), Buffer.from(key).subarray(5)]) })),
        ];
        return {
          ops,
          note: { deleted: [{ timeline_id: timelineId, level }] },
          result: level,
          undo: () => (state.deleting = false),
          apply: () => this.forgetTimeline(state),
        };
      } catch (error) {
        state.deleting = false;
        throw error;
      }
    });
    await this.clearLevel(level);
  }

  /** Deletes every range a level owns and drops its tombstone; the disk space returns in the background (`compactFreed`). */
  private async clearLevel(level: number): Promise<void> {
    for (const tag of LEVEL_TAGS) {
      const start = levelPrefix(tag, level);
      await this.kv.clear({ gte: start, lt: prefixEnd(start) });
    }
    await this.kv.write([{ type: 'del', key: levelPrefix(Tag.tombstone, level) }], true);
    this.compactFreed(level);
  }

  /**
   * Compacts the ranges that deleted levels held, so their disk space returns: in the background, and coalesced.
   * LevelDB's compactRange flushes the memtable and rewrites every file overlapping the range at each level however
   * little the range holds. Awaited per deleted branch, six of them kept a core and the disk busy in the soak (branch
   * deletion p50 ~1 s); run at once in the background, one pass per deletion still kept LevelDB's compaction thread
   * on a core a quarter of the time (docs/performance.md). So a deletion waits `freedCompactionDelayMs` for the
   * next ones, and the levels deleted by then share one pass: one compaction per tag, from the lowest to the highest.
   */
  private compactFreed(level: number): void {
    this.freedLevels.push(level);
    this.scheduleCompaction();
  }

  private scheduleCompaction(): void {
    if (this.closing) this.compactNow();
    else if (!this.compacting && !this.compactionDue) {
      this.compactionDue = setTimeout(() => this.compactNow(), this.options.freedCompactionDelayMs ?? DEFAULT_FREED_COMPACTION_DELAY_MS);
      this.compactionDue.unref();
    }
  }

  /** Starts the pass over the levels freed so far, unless one is under way (it schedules the next when it ends). */
  private compactNow(): void {
    clearTimeout(this.compactionDue);
    this.compactionDue = undefined;
    if (this.compacting || this.freedLevels.length === 0) return;
    const levels = this.freedLevels.splice(0);
    const [from, to] = [Math.min(...levels), Math.max(...levels)];
    const pass = async () => {
      for (const tag of LEVEL_TAGS) await this.kv.compact(levelPrefix(tag, from), prefixEnd(levelPrefix(tag, to)));
    };
    this.compacting = pass().finally(() => {
      this.compacting = undefined;
      if (this.freedLevels.length > 0) this.scheduleCompaction();
    });
    this.track(this.compacting);
  }

  // ---------------------------------------------------------------- reads

  /** `soon`: the read may wait for others of this turn of the event loop, to join them (VersionReader.readSoon). */
  private async readVersion(level: number, eventId: string, lsn: number, soon = false): Promise<EventRecord | undefined> {
    const written = this.inFlight.get(versionRefKey({ level, eventId, lsn }));
    if (written) return written;
    const ref = { level, eventId, lsn };
    return soon ? this.reader.readSoon(ref) : (await this.reader.read([ref]))[0];
  }

  /** The version of an event visible through `chain`, and where it lives. */
  private async resolve(chain: ChainLink[], eventId: string, soon = false): Promise<Resolved | undefined> {
    const view = new ChainView(this.versions, chain);
    for (let depth = 0; depth < chain.length; depth++) {
      const { level, cap } = chain[depth]!;
      const list = this.versions.list(level, eventId);
      if (list) {
        const version = visibleVersion(list, cap);
        if (!version) continue;
        if (view.overridden(depth, eventId, version)) return undefined;
        const record = await this.readVersion(level, eventId, version.lsn, soon);
        if (!record) throw new ApiError('data_loss', `version ${version.lsn} of event "${eventId}" is missing`);
        return { level, lsn: version.lsn, record };
      }
      if (this.registry.hasGenesis(level)) {
        const record = await this.readVersion(level, eventId, 0, soon);
        if (record) return { level, lsn: 0, record };
      }
    }
    return undefined;
  }

  async getEvent(timelineId: string, eventId: string): Promise<EventRecord | undefined> {
    await this.sync();
    const state = this.live(timelineId);
    if (typeof eventId !== 'string' || eventId.length === 0) return undefined;
    return (await this.resolve(this.readChain(state), eventId))?.record;
  }

  async search(timelineId: string, query: SearchQuery): Promise<SearchPage> {
    await this.sync();
    const state = this.live(timelineId);
    const { loads, versions } = this;
    const limit = Math.max(1, Math.floor(query.pageSize));
    const chain = this.readChain(state);
    // The words are normalised from their joined text, so that text keys the page as exactly as the words do.
    const wordText = query.words.join(' ');
    // Joined, not a template: one flat string, where a template's concatenations are kept as a tree of parts.
    const cacheKey = [this.stamp(chain), wordText, instantText(query.start), instantText(query.end), limit, query.cursor ?? ''].join('|');
    const cached = this.searchCache.get(cacheKey);
    if (cached) return cached;

    const words = [...new Set(locationWords(wordText))].sort();
    const startKey = query.start && encodeInstantKey(query.start);
    const endKey = query.end && encodeInstantKey(query.end);
    const identity = { timelineId, words, startKey, endKey };
    const after = query.cursor ? decodeCursor(query.cursor, identity) : undefined;
    if (startKey && endKey && Buffer.compare(startKey, endKey) > 0) return { events: [] };
    const genesisLevels = this.genesisLevels(chain);
    await Promise.all(genesisLevels.map((level) => this.genesis.indexSoon(level)));
    const indexes = new Map(genesisLevels.map((level) => [level, this.genesis.readyIndex(level)]));
    const frequency = (word: string): number =>
      chain.reduce((sum, { level }) => {
        const index = indexes.get(level);
        const genesis = index ? (index.postings.get(word)?.length ?? 0) : (this.registry.atLevel(level)?.record.frequent_words?.[word] ?? 0);
        return sum + genesis + (versions.current(level)?.count(word) ?? 0);
      }, 0);
    const result = await searchChain(this.kv, this.reader, versions, chain, {
      words, startKey, endKey, after, limit, frequency,
      hasGenesis: (level) => indexes.has(level),
      genesisIndex: (level) => indexes.get(level),
    }).catch((error: unknown) => {
      // Deleted while the search read the store: its versions went with it, and it is not found.
      this.live(timelineId);
      throw error;
    });
    const page: SearchPage = { events: Object.freeze(result.events) as EventRecord[] };
    if (result.nextAfter) page.nextCursor = encodeCursor(identity, result.nextAfter);
    // A page read across a reload of the whole state is not kept: its stamp may name the new state too.
    if (loads === this.loads) this.searchCache.set(cacheKey, Object.freeze(page));
    return page;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Versions written to `state`'s level in one synced batch under `lsn`, with their summaries, index changes,
   * genesis markers and the timeline's next revision. Memory learns the versions before the batch (invisible:
   * above the level's committed LSN) and forgets them if it fails.
   */
  private versionsChange<T>(nextLsn: () => number, state: TimelineState, writes: EventRecord[], genesisMarkers: Resolved[], result: T): Change<T> {
    const lsn = nextLsn();
    const level = state.record.level;
    const base = this.latest(state);
    const record: StoredTimeline = { ...base, revision: base.revision + 1 };
    const learned: { level: number; eventId: string; info: VersionInfo }[] = [];
    const ops: WriteOp[] = [this.recordPut(record)];
    for (const marker of genesisMarkers) {
      if (this.versions.hasMarker(marker.level, marker.record.event_id)) continue;
      const info = summarise(marker.record, 0);
      ops.push({ type: 'put', key: versionKey(Tag.summary, marker.level, marker.record.event_id, 0), value: encodeSummary(info) });
      learned.push({ level: marker.level, eventId: marker.record.event_id, info });
    }
    for (const version of writes) {
      const info = summarise(version, lsn);
      ops.push({ type: 'put', key: versionKey(Tag.version, level, version.event_id, lsn), value: encodeRecord(version) });
      ops.push({ type: 'put', key: versionKey(Tag.summary, level, version.event_id, lsn), value: encodeSummary(info) });
      learned.push({ level, eventId: version.event_id, info });
    }
    for (const { level: at, eventId, info } of learned) this.versions.add(at, eventId, info);
    const inFlight = writes.map((version) => versionRefKey({ level, eventId: version.event_id, lsn }));
    writes.forEach((version, i) => this.inFlight.set(inFlight[i]!, version));
    const recordChange = this.recordChange(state, record);
    return {
      ops,
      note: { timelines: [record], versions: learned },
      result,
      undo: () => {
        for (const { level: at, eventId, info } of learned) this.versions.remove(at, eventId, info);
        for (const key of inFlight) this.inFlight.delete(key);
        recordChange.undo();
      },
      apply: () => {
        recordChange.apply();
        if (lsn > state.committedLsn) state.committedLsn = lsn;
        for (const key of inFlight) this.inFlight.delete(key);
      },
    };
  }

  /**
   * Runs a write in the timeline's queue and commits what it returns, against the timeline as it stands
   * when the write's turn comes (on a shared store: as every node's earlier commits left it). The queue
   * moves on once the batch has its place in the commit order, not once it is durable: the next write
   * builds on this one (its versions and record, in flight), and both can go in one synced batch. The
   * caller hears only when its batch is durable.
   */
  private write<T>(timelineId: string, task: (state: TimelineState, chain: ChainLink[], lsn: () => number) => Promise<Change<T>>): Promise<T> {
    if (!this.log.shared) this.live(timelineId);
    let durable: Promise<T> | undefined;
    const turn = this.queues.run(
      timelineId,
      () =>
        new Promise<void>((queued) => {
          const commit = this.commit(async (lsn) => {
            const state = this.live(timelineId);
            return task(state, this.writerChain(state), lsn);
          }, queued);
          durable = commit;
          let underWay = this.committing.get(timelineId);
          if (!underWay) this.committing.set(timelineId, (underWay = new Set()));
          underWay.add(commit);
          const settle = () => {
            underWay.delete(commit);
            if (underWay.size === 0 && this.committing.get(timelineId) === underWay) this.committing.delete(timelineId);
            queued();
          };
          commit.then(settle, settle);
        }),
    );
    return turn.then(() => durable!);
  }

  /** Resolves once every write of the timeline queued before now is durable or has failed. */
  private async durableSoFar(timelineId: string): Promise<void> {
    const underWay = [...(this.committing.get(timelineId) ?? [])];
    // This write's own commit is among them, and is not durable until this returns: leave it out.
    await Promise.allSettled(underWay.slice(0, -1));
  }

  /** A writer's chain: its own level as far as it was written, in flight included; the others as committed. */
  private writerChain(state: TimelineState): ChainLink[] {
    const chain = this.readChain(state);
    chain[0] = { level: state.record.level, cap: Infinity };
    return chain;
  }

  /** The record the next write builds on: the newest one built, durable or not. */
  private latest(state: TimelineState): StoredTimeline {
    return state.pendingRecord ?? state.record;
  }

  /** A record change in a commit: writers build on it at once, readers see it once durable. */
  private recordChange(state: TimelineState, record: StoredTimeline): { apply(): void; undo(): void } {
    state.pendingRecord = record;
    return {
      apply: () => {
        state.record = record;
        if (state.pendingRecord === record) state.pendingRecord = undefined;
      },
      // Whatever was built on it fails as well (see CommitLog.commit).
      undo: () => (state.pendingRecord = undefined),
    };
  }

  /**
   * Reads, before a write's turn, the version it will read in its turn. The reads of a busy timeline's queued
   * writes then overlap instead of following one another, and each turn finds its record in the version cache
   * (or reads anew, where a write in between made a newer version). Its own failures are the turn's to meet.
   */
  private readAhead(timelineId: string, eventId: string): Promise<unknown> {
    const state = this.registry.live(timelineId);
    if (!state || !this.reader.caching) return Promise.resolve();
    return this.resolve(this.writerChain(state), eventId, true).catch(() => undefined);
  }

  async manipulate(timelineId: string, eventId: string, outcome: Outcome, actor: string, precheck?: Precheck): Promise<ManipulationResult> {
    if (outcome.new_event_id !== undefined) checkId('new event id', outcome.new_event_id);
    const readAhead = this.readAhead(timelineId, eventId);
    const newId = outcome.new_event_id ?? newEventId();
    const checked = precheck && this.log.shared && !this.closing && !this.writing(timelineId) ? await this.checkAhead(timelineId, eventId, outcome, newId, actor, precheck) : undefined;
    return this.write(timelineId, async (state, chain, lsn) => {
      await readAhead;
      const found = await this.resolve(chain, eventId);
      if (!found) throw eventNotFound(eventId, timelineId);
      checkManipulable(timelineId, found.record);
      if (outcome.new_event_id !== undefined && (await this.resolve(chain, newId))) throw newEventIdTaken(newId, timelineId);
      const plan = (): ManipulationProposal => {
        const { superseded, created } = planManipulation(timelineId, found.record, outcome, newId, actor);
        return { timeline_id: timelineId, original: superseded, created };
      };
      let proposal: ManipulationProposal;
      if (precheck) {
        // The check analyses the timeline as committed: let the writes ahead of this one become durable first.
        await this.durableSoFar(timelineId);
        if (checked && checked.stamp === this.checkStamp(state) && checked.level === found.level && checked.lsn === found.lsn) {
          // Nothing the check read has changed: its verdict stands, for the very proposal it saw.
          if (checked.refused) throw checked.refusal;
          proposal = checked.proposal;
        } else {
          proposal = plan();
          await precheck(proposal);
        }
      } else proposal = plan();
      const { original: superseded, created } = proposal;
      return this.versionsChange(
        lsn,
        state,
        [superseded, created],
        found.lsn === 0 ? [found] : [],
        { original: superseded, created },
      );
    });
  }

  /** Whether this node has a write of the timeline queued, committing, or checking ahead of its turn. */
  private writing(timelineId: string): boolean {
    return this.queues.busy(timelineId) || this.committing.has(timelineId) || this.checkingAhead.has(timelineId);
  }

  /**
   * On a shared store a write's turn holds every node's commits (PgCommitLog), so a long check runs before the
   * turn instead, on the timeline as committed. The turn takes its verdict when nothing the check read has
   * changed since, and checks again otherwise. Undefined when the proposal cannot be made yet (the turn, with
   * the writes ahead of it, decides). A local store's turn holds only the timeline's own writes, which a change
   * made during the check would make check again, so there the check runs in the turn.
   */
  private checkAhead(timelineId: string, eventId: string, outcome: Outcome, newId: string, actor: string, precheck: Precheck): Promise<CheckedAhead | undefined> {
    const checking = this.checkAheadNow(timelineId, eventId, outcome, newId, actor, precheck).finally(() => this.checkingAhead.delete(timelineId));
    this.checkingAhead.set(timelineId, checking);
    return checking;
  }

  private async checkAheadNow(timelineId: string, eventId: string, outcome: Outcome, newId: string, actor: string, precheck: Precheck): Promise<CheckedAhead | undefined> {
    try {
      await this.sync();
      const state = this.registry.live(timelineId);
      if (!state) return undefined;
      const stamp = this.checkStamp(state);
      const chain = this.readChain(state);
      const found = await this.resolve(chain, eventId);
      if (!found || (outcome.new_event_id !== undefined && (await this.resolve(chain, newId)))) return undefined;
      const { superseded, created } = planManipulation(timelineId, found.record, outcome, newId, actor);
      const seen = { stamp, level: found.level, lsn: found.lsn, proposal: { timeline_id: timelineId, original: superseded, created } };
      try {
        await precheck(seen.proposal);
        return { ...seen, refused: false };
      } catch (refusal) {
        // Only a refusal is a verdict; whatever else went wrong, the turn checks again.
        if (refusal instanceof ApiError && refusal.code === 'failed_precondition') return { ...seen, refused: true, refusal };
        return undefined;
      }
    } catch {
      return undefined;
    }
  }

  /** Changes whenever what a check reads may have: the timeline's chain as committed, any anchor, or the whole state reloaded. */
  private checkStamp(state: TimelineState): string {
    return `${this.stamp(this.registry.chain(state))}#${this.anchors.generation}#${this.loads}`;
  }

  async revert(timelineId: string, manipulatedEventId: string, actor: string): Promise<RevertResult> {
    const readAhead = this.readAhead(timelineId, manipulatedEventId);
    return this.write(timelineId, async (state, chain, lsn) => {
      await readAhead;
      const found = await this.resolve(chain, manipulatedEventId);
      if (!found) throw eventNotFound(manipulatedEventId, timelineId);
      const originalFound = found.record.supersedes === undefined ? undefined : await this.resolve(chain, found.record.supersedes);
      const { reverted, restored } = planRevert(timelineId, found.record, originalFound?.record, actor);
      return this.versionsChange(
        lsn,
        state,
        [reverted, restored],
        [],
        { reverted, restored },
      );
    });
  }

  async insertEvent(timelineId: string, event: NewEvent, actor: string): Promise<EventRecord> {
    return this.write(timelineId, async (state, _chain, lsn) => {
      const record = newEventRecord(timelineId, newEventId(), event, actor);
      return this.versionsChange(lsn, state, [record], [], record);
    });
  }

  // ---------------------------------------------------------------- bulk load

  async bulkLoad(
    timelineId: string,
    events: AsyncIterable<GenesisEvent> | Iterable<GenesisEvent>,
    options: BulkLoadOptions = {},
  ): Promise<number> {
    await this.sync();
    const state = this.live(timelineId);
    if (options.ifEmpty && (state.bulkLoading || !this.isEmpty(state))) return 0;
    this.checkBulkLoadable(state);
    state.bulkLoading = true;
    try {
      return await this.queues.run(timelineId, async () => {
        const held = await this.log.holdLoad(state.record.level);
        try {
          const claimed = await this.claimBulkLoad(timelineId, options);
          return claimed ? await this.runBulkLoad(claimed, events, options) : 0;
        } finally {
          await held.release();
        }
      });
    } finally {
      state.bulkLoading = false;
    }
  }

  /** Never held an event nor recorded a change, and no load claimed (by any node of a shared store). */
  private isEmpty(state: TimelineState): boolean {
    const record = this.latest(state);
    return record.revision === 0 && record.genesis_count === 0 && !record.loading;
  }

  private checkBulkLoadable(state: TimelineState, byThisNode = true): void {
    const timelineId = state.record.timeline_id;
    if (this.registry.children(timelineId).length > 0) {
      throw failed(`timeline "${timelineId}" has branches; bulk loads go into a timeline nothing branches from`);
    }
    if ((byThisNode && state.bulkLoading) || state.record.loading) throw failed(`timeline "${timelineId}" is already being bulk-loaded`);
  }

  /**
   * Marks the timeline as loading, durably, so that no other node loads it too and an interrupted load is
   * found at the next open. Undefined when `ifEmpty` finds events or changes there already.
   */
  private claimBulkLoad(timelineId: string, options: BulkLoadOptions): Promise<TimelineState | undefined> {
    return this.commit(async () => {
      const state = this.live(timelineId);
      if (options.ifEmpty && !this.isEmpty(state)) return { ops: [], note: {}, result: undefined };
      this.checkBulkLoadable(state, false);
      const record: StoredTimeline = { ...this.latest(state), loading: true };
      return { ops: [this.recordPut(record)], note: { timelines: [record] }, result: state, ...this.recordChange(state, record) };
    });
  }

  private async runBulkLoad(
    state: TimelineState,
    events: AsyncIterable<GenesisEvent> | Iterable<GenesisEvent>,
    options: BulkLoadOptions,
  ): Promise<number> {
    const { level, timeline_id: timelineId } = state.record;
    const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BULK_BATCH);
    const existing = state.record.genesis_count > 0 ? await this.genesis.snapshot(level) : undefined;
    const accumulator = new GenesisAccumulator(existing);
    const batch = new GenesisLoadBatch(timelineId, level, accumulator);
    let loaded = 0;
    const add = (event: GenesisEvent): void => {
      batch.add(event);
      loaded += 1;
    };
    const flush = async (): Promise<void> => {
      await this.writeLoadBatch(batch.take());
      options.onProgress?.(loaded);
    };
    try {
      if (Symbol.iterator in events) {
        for (const event of events) {
          add(event);
          if (loaded % batchSize === 0) await flush();
        }
      } else {
        for await (const event of events) {
          add(event);
          if (loaded % batchSize === 0) await flush();
        }
      }
      const last = batch.take();
      await this.finishGenesis(state, accumulator.build(), accumulator.frequentWords(), [...last.puts, ...last.dels]);
    } catch (error) {
      // Finished from what it wrote, as a load cut short is at the next open. Where that fails too (the store
      // is failing), the caller hears the load's own error, and the next open finishes it.
      await this.recoverInterruptedLoad(state).catch(() => undefined);
      throw error;
    } finally {
      // After the commit (or the recovery's): a snapshot read meanwhile is of the genesis before it.
      this.forgetGenesis(level);
    }
    options.onProgress?.(loaded);
    return loaded;
  }

  /**
   * A batch of a load: not durable (an interrupted load is redone from what it wrote). Its deletions go in the
   * same atomic write as its puts, so a bulk write (PostgreSQL's COPY, puts only) serves batches without them.
   */
  private async writeLoadBatch({ puts, dels }: { puts: PutOp[]; dels: WriteOp[] }): Promise<void> {
    if (this.kv.writeBulk && dels.length === 0) await this.kv.writeBulk(puts);
    else await this.kv.write([...puts, ...dels], false);
  }

  /**
   * Writes the snapshot, the genesis count and clears `loading`, with `ops`, in one synced batch. A level's
   * first snapshot goes ahead of it, a chunk per batch, each encoded once the one before is written: nothing
   * reads a chunk the record does not count, and the whole snapshot is never held at once, nor twice over by
   * LevelDB (write batch and memtable), at the load's peak.
   */
  private async finishGenesis(
    state: TimelineState,
    snapshot: GenesisSnapshot,
    frequentWords: Record<string, number>,
    ops: WriteOp[],
  ): Promise<void> {
    const { level } = state.record;
    const ahead = state.record.snapshot_chunks === 0;
    const chunkPuts: PutOp[] = [];
    let chunks = 0;
    for (const bytes of encodeSnapshotChunks(snapshot, SNAPSHOT_CHUNK_BYTES)) {
      const put: PutOp = { type: 'put', key: chunkKey(level, chunks++), value: bytes };
      if (ahead) await this.writeLoadBatch({ puts: [put], dels: [] });
      else chunkPuts.push(put);
    }
    await this.commit(async () => {
      // As every node's commits left it: others may have changed the record (its stability) meanwhile.
      const current = this.registry.atLevel(level) ?? state;
      const batch: WriteOp[] = ahead ? [...ops] : [...ops, ...chunkPuts];
      const base = this.latest(current);
      for (let i = chunks; i < base.snapshot_chunks; i++) batch.push({ type: 'del', key: chunkKey(level, i) });
      const record: StoredTimeline = {
        ...base,
        genesis_count: snapshot.ids.length,
        genesis_loads: (base.genesis_loads ?? 0) + 1,
        snapshot_chunks: chunks,
        frequent_words: frequentWords,
      };
      delete record.loading;
      batch.push(this.recordPut(record));
      return { ops: batch, note: { timelines: [record] }, result: undefined, ...this.recordChange(current, record) };
    });
  }

  /** A bulk load was cut short: rebuild its snapshot and count from the genesis versions it wrote. */
  private async recoverInterruptedLoad(state: TimelineState): Promise<void> {
    const { level } = state.record;
    const accumulator = new GenesisAccumulator();
    await this.scan(levelPrefix(Tag.version, level), (key, value) => {
      if (parseVersionKey(key).lsn !== 0) return;
      const record = decodeRecord(value);
      const time = parseInstant(record.time);
      const point = instantPoint(time.seconds, time.nanos);
      accumulator.add(record.event_id, point.seconds, point.nanos, locationWords(record.location).join(' '), record.causes);
    });
    await this.finishGenesis(state, accumulator.build(), accumulator.frequentWords(), []);
  }

  private forgetGenesis(level: number): void {
    this.genesis.forget(level);
    this.reader.forgetLevel(level);
  }

  cacheCounts(): CacheCounts[] {
    return [this.searchCache.counts(), this.graphs.counts(), ...this.genesis.counts(), this.reader.counts(), ...sharedWordsCounts()];
  }

  // ---------------------------------------------------------------- causal graph

  /** The graph of a timeline as it stands (TimelineGraphs keeps it up to date commit by commit). */
  async readCausalGraph(timelineId: string, options: CausalGraphOptions = {}): Promise<CausalGraphRead> {
    await this.sync();
    const state = this.live(timelineId);
    const chain = this.readChain(state);
    const stamp = this.stamp(this.registry.chain(state));
    const revision = state.record.revision;
    const { graph, release } = await this.graphs.read(timelineId, chain, this.genesisLevels(chain), options.overlay ?? []);
    return { graph, revision, stamp, release };
  }

  // ---------------------------------------------------------------- anchors

  async putAnchor(anchor: AnchorRecord): Promise<AnchorRecord> {
    checkId('anchor id', anchor.anchor_id);
    return this.write(anchor.timeline_id, async (state) => {
      const ops: WriteOp[] = [];
      const changes: AnchorChange[] = [];
      const owner = await this.kv.get(tagKey(Tag.anchorOwner, anchor.anchor_id));
      const previous = owner && this.registry.live(Buffer.from(owner).toString('utf8'));
      if (previous && previous !== state) {
        ops.push({ type: 'del', key: levelKey(Tag.anchor, previous.record.level, utf8(anchor.anchor_id)) });
        changes.push({ level: previous.record.level, anchorId: anchor.anchor_id });
      }
      const value = encodeRecord(anchor);
      ops.push({ type: 'put', key: levelKey(Tag.anchor, state.record.level, utf8(anchor.anchor_id)), value });
      ops.push({ type: 'put', key: tagKey(Tag.anchorOwner, anchor.anchor_id), value: utf8(anchor.timeline_id) });
      // As a later read from storage would give it; its pin made now, so that applying the change after the write cannot fail.
      const record = decodeRecord<AnchorRecord>(value);
      pinOf(record);
      changes.push({ level: state.record.level, anchorId: anchor.anchor_id, record });
      return { ops, note: { anchors: changes }, result: anchor, apply: () => this.anchors.apply(changes) };
    });
  }

  async getAnchor(anchorId: string): Promise<AnchorRecord | undefined> {
    if (typeof anchorId !== 'string' || anchorId.length === 0) return undefined;
    await this.sync();
    const owner = await this.kv.get(tagKey(Tag.anchorOwner, anchorId));
    const state = owner && this.registry.live(Buffer.from(owner).toString('utf8'));
    if (!state) return undefined;
    const bytes = await this.kv.get(levelKey(Tag.anchor, state.record.level, utf8(anchorId)));
    return bytes && decodeRecord<AnchorRecord>(bytes);
  }

  async listAnchors(timelineId: string): Promise<readonly AnchorRecord[]> {
    await this.sync();
    const { level } = this.live(timelineId).record;
    return this.anchors.list(level, () => this.readAnchors(level));
  }

  async anchorPins(timelineId: string): Promise<readonly AnchorPin[]> {
    await this.sync();
    const { level } = this.live(timelineId).record;
    return this.anchors.pins(level, () => this.readAnchors(level));
  }

  async countAnchors(timelineId: string): Promise<number> {
    await this.sync();
    const { level } = this.live(timelineId).record;
    return this.anchors.count(level, () => this.readAnchors(level));
  }

  private async readAnchors(level: number): Promise<AnchorRecord[]> {
    const prefix = levelPrefix(Tag.anchor, level);
    return (await this.kv.entries({ gte: prefix, lt: prefixEnd(prefix) })).map(([, value]) => decodeRecord<AnchorRecord>(value));
  }

  async deleteAnchor(anchorId: string): Promise<boolean> {
    const anchor = await this.getAnchor(anchorId);
    if (!anchor) return false;
    return this.write(anchor.timeline_id, async (state) => {
      const key = levelKey(Tag.anchor, state.record.level, utf8(anchorId));
      if (!(await this.kv.get(key))) return { ops: [], note: {}, result: false };
      const ops: WriteOp[] = [
        { type: 'del', key },
        { type: 'del', key: tagKey(Tag.anchorOwner, anchorId) },
      ];
      const changes: AnchorChange[] = [{ level: state.record.level, anchorId }];
      return { ops, note: { anchors: changes }, result: true, apply: () => this.anchors.apply(changes) };
    });
  }
}

/** An instant as a cache-key part: exact to the nanosecond, and the same however it was written. */
const instantText = (instant: Instant | undefined): string => (instant ? `${instant.seconds}.${instant.nanos}` : '');

