/**
 * One level's search index of the versions written above genesis, in memory: the newest version of each
 * event that happens, in (time, event id) order, as a whole and per location word (genesis markers left out).
 * Kept by the version index as versions come and go, so a search reads a range of a B+ tree instead of the store.
 *
 * Keys are the store's sort keys (time key, then UTF-8 id) as latin1 text: one character per byte, so
 * JavaScript's string order is the byte order.
 */
import sortedBtree from 'sorted-btree';
import { INSTANT_KEY_BYTES } from '../time/index.ts';
import type { VersionInfo } from './version-index.ts';

const { default: BTree } = sortedBtree;
type Tree = InstanceType<typeof BTree<string, string>>;

/** The sort key of a version as latin1 text, from its time key's (`VersionInfo.timeText`; an ASCII id is its own UTF-8). */
export function sortText(timeText: string, eventId: string): string {
  if (Buffer.byteLength(eventId, 'utf8') !== eventId.length) return timeText + Buffer.from(eventId, 'utf8').toString('latin1');
  return timeText + eventId;
}

/** Sort-key text back to the key's bytes. */
export const sortTextBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/** The time part of sort-key text. */
export const timeText = (text: string): string => text.slice(0, INSTANT_KEY_BYTES);

/** A genesis marker (LSN 0) stands for the event's genesis version, which a search finds in the level's genesis stream. */
const indexed = (info: VersionInfo): boolean => info.happens && info.lsn > 0;

export class CurrentIndex {
  private readonly all: Tree = new BTree<string, string>();
  private readonly byWord = new Map<string, Tree>();

  add(eventId: string, info: VersionInfo): void {
    if (!indexed(info)) return;
    const key = sortText(info.timeText, eventId);
    this.all.set(key, eventId);
    for (const word of new Set(info.words)) {
      let tree = this.byWord.get(word);
      if (!tree) this.byWord.set(word, (tree = new BTree<string, string>()));
      tree.set(key, eventId);
    }
  }

  delete(eventId: string, info: VersionInfo): void {
    if (!indexed(info)) return;
    const key = sortText(info.timeText, eventId);
    this.all.delete(key);
    for (const word of new Set(info.words)) {
      const tree = this.byWord.get(word);
      if (!tree) continue;
      tree.delete(key);
      if (tree.size === 0) this.byWord.delete(word);
    }
  }

  /**
   * (sort-key text, event id) from `lowest` on, of every event or of those at a place with `word`. `stable`: of the
   * index as it is now, whatever changes while the caller iterates (a copy-on-write clone of the tree).
   */
  from(word: string | undefined, lowest: string, stable = false): IterableIterator<[string, string]> {
    const tree = word === undefined ? this.all : this.byWord.get(word);
    if (!tree) return [][Symbol.iterator]();
    return (stable ? tree.clone() : tree).entries(lowest);
  }

  count(word?: string): number {
    return (word === undefined ? this.all : this.byWord.get(word))?.size ?? 0;
  }
}
