/**
 * The in-memory part of the store: for every event that has a version above genesis on some level, the list
 * of its versions there (ascending LSN), each with what searches need without a read (happens?, time key,
 * location words). Genesis events that were never changed are not here: the store holds no per-event state
 * for bulk-loaded data. Lsn 0 in a list is a marker: "this level has a genesis version of the event".
 */
import { CurrentIndex } from './current-index.ts';

export interface VersionInfo {
  lsn: number;
  happens: boolean;
  /** The time key as latin1 text, one character per byte: 24 bytes of heap where a 12-byte array takes over 200. */
  timeText: string;
  /** Shared with other versions at the same place (`sharedLocationWords`): never modified. */
  words: readonly string[];
  /** Set on events created by a manipulation. */
  supersedes?: string;
}

interface LevelVersions {
  byEvent: Map<string, VersionInfo[]>;
  /** (lsn, event) of every version above 0, ascending: writes to one level are serialised. */
  log: { lsn: number; eventId: string }[];
  /** The newest version of each event here, when it happens and is not a genesis marker, in search order. */
  current: CurrentIndex;
  /** For each event, the events with a version here made from it (`supersedes`). */
  successors: Map<string, string[]>;
}

/** The newest version at or below `cap`. */
export function visibleVersion(list: readonly VersionInfo[] | undefined, cap: number): VersionInfo | undefined {
  if (!list) return undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const version = list[i]!;
    if (version.lsn <= cap) return version;
  }
  return undefined;
}

export class VersionIndex {
  private readonly levels = new Map<number, LevelVersions>();

  private levelOf(level: number): LevelVersions {
    let entry = this.levels.get(level);
    if (!entry) {
      entry = { byEvent: new Map(), log: [], current: new CurrentIndex(), successors: new Map() };
      this.levels.set(level, entry);
    }
    return entry;
  }

  list(level: number, eventId: string): VersionInfo[] | undefined {
    return this.levels.get(level)?.byEvent.get(eventId);
  }

  hasMarker(level: number, eventId: string): boolean {
    return this.list(level, eventId)?.[0]?.lsn === 0;
  }

  add(level: number, eventId: string, info: VersionInfo): void {
    const entry = this.levelOf(level);
    const list = entry.byEvent.get(eventId);
    if (!list) {
      // A literal of one: most changed events keep one version, and `[]` takes 17 slots on its first insert.
      entry.byEvent.set(eventId, [info]);
      entry.current.add(eventId, info);
    } else {
      let at = list.length;
      while (at > 0 && list[at - 1]!.lsn > info.lsn) at--;
      if (list[at - 1]?.lsn === info.lsn) return;
      const newest = list[list.length - 1]!;
      list.splice(at, 0, info);
      if (at === list.length - 1) {
        entry.current.delete(eventId, newest);
        entry.current.add(eventId, info);
      }
    }
    if (info.lsn > 0) {
      const { log } = entry;
      let logAt = log.length;
      while (logAt > 0 && log[logAt - 1]!.lsn > info.lsn) logAt--;
      if (logAt === log.length) log.push({ lsn: info.lsn, eventId });
      else log.splice(logAt, 0, { lsn: info.lsn, eventId });
    }
    if (info.supersedes !== undefined) {
      const made = entry.successors.get(info.supersedes);
      if (!made) entry.successors.set(info.supersedes, [eventId]);
      else if (!made.includes(eventId)) made.push(eventId);
    }
  }

  /** Undoes `add` (a batch that failed). */
  remove(level: number, eventId: string, info: VersionInfo): void {
    const entry = this.levels.get(level);
    const list = entry?.byEvent.get(eventId);
    if (!entry || !list) return;
    const at = list.indexOf(info);
    if (at < 0) return;
    list.splice(at, 1);
    if (at === list.length) {
      entry.current.delete(eventId, info);
      const newest = list[list.length - 1];
      if (newest) entry.current.add(eventId, newest);
    }
    if (list.length === 0) entry.byEvent.delete(eventId);
    const logAt = entry.log.findIndex((item) => item.lsn === info.lsn && item.eventId === eventId);
    if (logAt >= 0) entry.log.splice(logAt, 1);
    const from = info.supersedes;
    if (from !== undefined && !list.some((version) => version.supersedes === from)) {
      const made = entry.successors.get(from)?.filter((id) => id !== eventId);
      if (made?.length) entry.successors.set(from, made);
      else entry.successors.delete(from);
    }
  }

  dropLevel(level: number): void {
    this.levels.delete(level);
  }

  /** Events with a version at `level` above `cap` (each once). */
  changedAfter(level: number, cap: number): Set<string> {
    return this.changedBetween(level, cap, Infinity);
  }

  /** Events with a version at `level` above `after` and at most `upTo` (each once). */
  changedBetween(level: number, after: number, upTo: number): Set<string> {
    const ids = new Set<string>();
    const log = this.levels.get(level)?.log;
    if (!log) return ids;
    let low = 0;
    let high = log.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (log[mid]!.lsn <= after) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < log.length && log[i]!.lsn <= upTo; i++) ids.add(log[i]!.eventId);
    return ids;
  }

  /**
   * Adds to `ids` every event with a version on one of `chain`'s levels made from one of them, and so on down the
   * line: whether a chain sees an event can depend on its predecessor's versions (`ChainView.overridden`).
   */
  addSuccessors(chain: readonly { level: number }[], ids: Set<string>): void {
    for (const id of ids) {
      for (const { level } of chain) for (const successor of this.levels.get(level)?.successors.get(id) ?? []) ids.add(successor);
    }
  }

  /** The level's search index of its newest versions (empty for a level without versions). */
  current(level: number): CurrentIndex | undefined {
    return this.levels.get(level)?.current;
  }

  eventIds(level: number): IterableIterator<string> | undefined {
    return this.levels.get(level)?.byEvent.keys();
  }

  /** LSN of the newest version registered at a level (committed or in flight); 0 if none. */
  newestLsn(level: number): number {
    const log = this.levels.get(level)?.log;
    return log?.[log.length - 1]?.lsn ?? 0;
  }

  maxLsn(): number {
    let max = 0;
    for (const entry of this.levels.values()) {
      const last = entry.log[entry.log.length - 1];
      if (last && last.lsn > max) max = last.lsn;
    }
    return max;
  }
}
