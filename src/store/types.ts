/**
 * The timeline store contract. The service layer validates requests (zod) and calls this interface;
 * every backend passes the conformance suite in `test/store/conformance.ts`.
 *
 * Errors are `ApiError`s (`not_found`, `aborted` for conflicts, `failed_precondition`, `already_exists`), and
 * `BadCursorError` for a search cursor that is not the store's own or belongs to another query. Reads never go
 * through a writer queue.
 */
import type { AnchorPin, CausalGraph } from '../analysis/causal-graph.ts';
import type { Instant } from '../time/index.ts';
import type { CacheCounts } from './metered-cache.ts';

export type TimelineKind = 'primary' | 'alternate' | 'parallel';
export type EventStatus = 'original' | 'manipulated' | 'reverted' | 'cancelled';
export type EventKind = 'historical' | 'arrival';

/** One intervention of a manipulation, as stored (time is `formatInstant` output). */
export interface StoredChange {
  action: string;
  time: string;
}

/** An event version as the store returns it. `timeline_id` is the level the version lives on. */
export interface EventRecord {
  event_id: string;
  timeline_id: string;
  description: string;
  /** `formatInstant` output, exact. */
  time: string;
  location: string;
  causes: string[];
  status: EventStatus;
  supersedes?: string;
  superseded_by?: string;
  changes?: StoredChange[];
  kind?: EventKind;
  traveller?: string;
  created_by?: string;
  created_at?: string;
  /** On a reverted manipulation: who reverted it, and when. */
  reverted_by?: string;
  reverted_at?: string;
}

export interface TimelineRecord {
  timeline_id: string;
  kind: TimelineKind;
  description: string;
  /** '' for primary. */
  base_timeline_id: string;
  variation: string;
  created_at: string;
  owner: string;
  /** Number of changes (manipulations, reverts, insertions) written to this timeline itself. */
  revision: number;
  /** Events that happen on this timeline as seen through its chain. */
  event_count: number;
  /** 'Unknown' until a paradox check stores one. */
  stability: string;
}

export interface NewTimeline {
  kind: 'alternate' | 'parallel';
  base_timeline_id: string;
  description: string;
  variation: string;
  owner: string;
  /** Generated (`tl_` + 20 base32 characters) unless given. */
  timeline_id?: string;
}

export interface OutcomeChange {
  action: string;
  time: Instant;
}

export interface Outcome {
  description: string;
  changes: OutcomeChange[];
  /** Generated (`evt_` + 20 base32 characters) unless given; must not be visible on the timeline already. */
  new_event_id?: string;
}

/**
 * What a manipulation would write, handed to `precheck` before anything is written: in the write's turn, or on a
 * shared store before it (and again in the turn if what the check read changed meanwhile; docs/storage.md).
 */
export interface ManipulationProposal {
  timeline_id: string;
  /** The original's next version on the timeline (with `superseded_by`). */
  original: EventRecord;
  /** The new event (with `supersedes`). */
  created: EventRecord;
}

export type Precheck = (proposal: ManipulationProposal) => void | Promise<void>;

export interface ManipulationResult {
  original: EventRecord;
  created: EventRecord;
}

export interface RevertResult {
  /** The manipulated event, now `reverted`. */
  reverted: EventRecord;
  /** The original, standing again (no `superseded_by`). */
  restored: EventRecord;
}

export interface NewEvent {
  description: string;
  time: Instant;
  location: string;
  causes: string[];
  kind?: EventKind;
  traveller?: string;
}

/** One genesis event for `bulkLoad`. Ids must be new to the timeline's chain (a re-load of identical data is harmless). */
export interface GenesisEvent {
  event_id: string;
  description: string;
  time: Instant;
  location: string;
  causes: string[];
}

export interface BulkLoadOptions {
  /** Events per LevelDB batch (default 5000). Only the last batch is synced. */
  batchSize?: number;
  onProgress?: (loaded: number) => void;
  /** Load only into a timeline that has never held an event nor recorded a change; otherwise load nothing (0). */
  ifEmpty?: boolean;
}

export interface SearchQuery {
  /** Location words, all of which must occur; the store normalises them (`locationWords`). Empty: time-only search. */
  words: string[];
  /** Inclusive bounds. */
  start?: Instant;
  end?: Instant;
  pageSize: number;
  /** `nextCursor` of a previous page of the same query. */
  cursor?: string;
}

export interface SearchPage {
  /** Events that happen, ordered by (time, event_id). */
  events: EventRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** A stored anchor: at least these fields; everything else is kept as given. */
export interface AnchorRecord {
  anchor_id: string;
  timeline_id: string;
  timestamp: string;
  [field: string]: unknown;
}

export interface CausalGraphOptions {
  /**
   * Versions to treat as already written on the timeline (e.g. a proposal's `original` and `created`),
   * so a safety check analyses the graph as it would stand after the write.
   */
  overlay?: EventRecord[];
}

export interface CausalGraphRead {
  graph: CausalGraph;
  /** The timeline's own revision. */
  revision: number;
  /** Changes whenever anything visible through the chain may have changed: a cache key for analysis results. */
  stamp: string;
  /**
   * Lets the graph's arrays be reused for a later state of the timeline: call it once no analysis reads them
   * any more (the event ids stay valid). Not calling it is safe; the arrays are then never reused.
   */
  release(): void;
}

export interface TimelineStore {
  open(): Promise<void>;
  close(): Promise<void>;

  createTimeline(spec: NewTimeline): Promise<TimelineRecord>;
  getTimeline(timelineId: string): Promise<TimelineRecord | undefined>;
  /** The owner of a live timeline (`''` for none), or undefined when there is no such timeline. Cheap: no counting. */
  timelineOwner(timelineId: string): Promise<string | undefined>;
  /** Live timelines on which a version of this event was written (not inherited): where it was made. */
  timelinesWriting(eventId: string): Promise<string[]>;
  listTimelines(): Promise<TimelineRecord[]>;
  /** primary or a timeline with children → failed_precondition; unknown → not_found. */
  deleteTimeline(timelineId: string): Promise<void>;
  /** Stores the stability a full paradox check found (no record back: counting the timeline's events costs a pass over its changes). */
  setStability(timelineId: string, stability: string): Promise<void>;

  getEvent(timelineId: string, eventId: string): Promise<EventRecord | undefined>;
  search(timelineId: string, query: SearchQuery): Promise<SearchPage>;

  manipulate(timelineId: string, eventId: string, outcome: Outcome, actor: string, precheck?: Precheck): Promise<ManipulationResult>;
  revert(timelineId: string, manipulatedEventId: string, actor: string): Promise<RevertResult>;
  insertEvent(timelineId: string, event: NewEvent, actor: string): Promise<EventRecord>;
  /** Returns the number of events loaded. Refused on a timeline with children. */
  bulkLoad(
    timelineId: string,
    events: AsyncIterable<GenesisEvent> | Iterable<GenesisEvent>,
    options?: BulkLoadOptions,
  ): Promise<number>;

  putAnchor(anchor: AnchorRecord): Promise<AnchorRecord>;
  getAnchor(anchorId: string): Promise<AnchorRecord | undefined>;
  /** The timeline's anchors in anchor-id order (UTF-8 bytes), shared and frozen: the same array until one changes. */
  listAnchors(timelineId: string): Promise<readonly AnchorRecord[]>;
  /** How many anchors the timeline has, without a list of them. */
  countAnchors(timelineId: string): Promise<number>;
  /**
   * The timeline's anchors as the anchor-breach check weighs them: in instant order, then anchor id (UTF-8 bytes)
   * at one instant; shared and frozen, the same array until one changes.
   */
  anchorPins(timelineId: string): Promise<readonly AnchorPin[]>;
  deleteAnchor(anchorId: string): Promise<boolean>;

  readCausalGraph(timelineId: string, options?: CausalGraphOptions): Promise<CausalGraphRead>;

  /** What each of the store's caches holds, with its hits and misses since the store opened. */
  cacheCounts(): CacheCounts[];
}
