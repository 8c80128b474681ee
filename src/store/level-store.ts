import { ApiError } from '../domain/errors.ts';
import type {
  AnchorRecord, BulkLoadOptions, CausalGraphOptions, CausalGraphRead, EventRecord, GenesisEvent, ManipulationResult,
  NewEvent, NewTimeline, Outcome, Precheck, RevertResult, SearchPage, SearchQuery, TimelineRecord, TimelineStore,
} from './types.ts';

/** The root LevelDB (`new Level(dir, ...)`); the store keeps to its own sublevel `t`. */
export interface RootDatabase {
  sublevel(name: string, options: { keyEncoding: 'view'; valueEncoding: 'view' }): unknown;
  compactRange?(start: Uint8Array, end: Uint8Array, options: { keyEncoding: 'view' }): Promise<void>;
  approximateSize?(start: Uint8Array, end: Uint8Array, options: { keyEncoding: 'view' }): Promise<number>;
}

export interface LevelTimelineStoreOptions {
  /** Description and owner of `primary` when the store creates it on first open. */
  primaryDescription?: string;
  primaryOwner?: string;
}

const pending = (): never => {
  throw new ApiError('unimplemented', 'timeline store: not implemented yet');
};

/** Stub while the implementation lands; the interface is final. */
export class LevelTimelineStore implements TimelineStore {
  constructor(
    readonly root: RootDatabase,
    readonly options: LevelTimelineStoreOptions = {},
  ) {}
  async open(): Promise<void> {}
  async close(): Promise<void> {}
  async createTimeline(_spec: NewTimeline): Promise<TimelineRecord> { return pending(); }
  async getTimeline(_id: string): Promise<TimelineRecord | undefined> { return pending(); }
  async listTimelines(): Promise<TimelineRecord[]> { return pending(); }
  async deleteTimeline(_id: string): Promise<void> { return pending(); }
  async setStability(_id: string, _stability: string): Promise<TimelineRecord> { return pending(); }
  async getEvent(_t: string, _e: string): Promise<EventRecord | undefined> { return pending(); }
  async search(_t: string, _q: SearchQuery): Promise<SearchPage> { return pending(); }
  async manipulate(_t: string, _e: string, _o: Outcome, _a: string, _p?: Precheck): Promise<ManipulationResult> { return pending(); }
  async revert(_t: string, _e: string, _a: string): Promise<RevertResult> { return pending(); }
  async insertEvent(_t: string, _e: NewEvent, _a: string): Promise<EventRecord> { return pending(); }
  async bulkLoad(_t: string, _e: AsyncIterable<GenesisEvent> | Iterable<GenesisEvent>, _o?: BulkLoadOptions): Promise<number> { return pending(); }
  async putAnchor(_a: AnchorRecord): Promise<AnchorRecord> { return pending(); }
  async getAnchor(_id: string): Promise<AnchorRecord | undefined> { return pending(); }
  async listAnchors(_t: string): Promise<AnchorRecord[]> { return pending(); }
  async deleteAnchor(_id: string): Promise<boolean> { return pending(); }
  async readCausalGraph(_t: string, _o?: CausalGraphOptions): Promise<CausalGraphRead> { return pending(); }
}
