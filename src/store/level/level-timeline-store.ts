import { CopyOnWriteTimelineStore, type TimelineStoreOptions } from '../timeline-store.ts';
import { KeyValueSpace, type RootDatabase } from './kv-space.ts';

export type { RootDatabase } from './kv-space.ts';

export interface LevelTimelineStoreOptions extends TimelineStoreOptions {
  /** Sublevel name (default `t`). */
  sublevel?: string;
}

/** The timeline store in a sublevel of the app's LevelDB. */
export class LevelTimelineStore extends CopyOnWriteTimelineStore {
  readonly entries: KeyValueSpace;

  constructor(root: RootDatabase, options: LevelTimelineStoreOptions = {}) {
    const entries = new KeyValueSpace(root, options.sublevel ?? 't');
    super(entries, options);
    this.entries = entries;
  }
}
