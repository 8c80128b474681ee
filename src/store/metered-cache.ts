import { LRUCache } from 'lru-cache';

/** What one cache holds and how it has done, for `/metrics`. */
export interface CacheCounts {
  name: string;
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
  maxBytes: number;
}

/** lru-cache weighs an entry again only when its value changes: a value is boxed so that it can be re-weighed. */
interface Box<V> {
  readonly value: V;
}

/**
 * A least-recently-used cache bounded in bytes (each entry's size is an estimate its owner gives), counting
 * its hits and misses. A budget of 0 turns it off: nothing is kept and every lookup misses.
 */

export class MeteredCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly lru: LRUCache<K, Box<V>> | undefined;
  private hits = 0;
  private misses = 0;

  constructor(
    readonly name: string,
    private readonly maxBytes: number,
  ) {
    this.lru = maxBytes > 0 ? new LRUCache<K, Box<V>>({ maxSize: maxBytes }) : undefined;
  }

  get(key: K): V | undefined {
    const value = this.lru?.get(key)?.value;
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  /** An entry larger than the whole budget is not kept. */
  set(key: K, value: V, bytes: number): void {
    this.lru?.set(key, { value }, { size: Math.max(1, Math.ceil(bytes)) });
  }

  /**
   * Keeps a value still being computed, so that concurrent readers share one computation; its size is
   * counted once it settles (a value rejected is forgotten). A later `set` of the key wins.
   */
  setPending<T>(key: K, value: V, settles: Promise<T>, bytesOf: (settled: T) => number): void {
    this.set(key, value, 1);
    settles.then(
      (settled) => {
        if (this.peek(key) === value) this.set(key, value, bytesOf(settled));
      },
      () => {
        if (this.peek(key) === value) this.delete(key);
      },
    );
  }

  /** The entry, if held, without counting a lookup or making it recent. */
  peek(key: K): V | undefined {
    return this.lru?.peek(key)?.value;
  }

  delete(key: K): void {
    this.lru?.delete(key);
  }

  clear(): void {
    this.lru?.clear();
  }

  /** Drops every entry whose key passes `test` (a walk over all entries: for rare events). */
  deleteIf(test: (key: K) => boolean): void {
    if (!this.lru) return;
    for (const key of [...this.lru.keys()]) if (test(key)) this.lru.delete(key);
  }

  counts(): CacheCounts {
    return {
      name: this.name,
      hits: this.hits,
      misses: this.misses,
      entries: this.lru?.size ?? 0,
      bytes: this.lru?.calculatedSize ?? 0,
      maxBytes: this.maxBytes,
    };
  }
}

/** Rough heap bytes of a string (V8 keeps one- or two-byte characters, plus a header). */
export const stringBytes = (text: string): number => 16 + text.length * 2;

/** Bytes of every typed array among an object's own values. */
export function typedArrayBytes(value: object): number {
  let bytes = 0;
  for (const field of Object.values(value)) if (ArrayBuffer.isView(field)) bytes += field.byteLength;
  return bytes;
}
