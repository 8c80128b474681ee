/**
 * The genesis snapshot: the bulk-loaded events of one level in the causal graph's own compact form
 * (times, interned places, causes as CSR), written at the end of every bulk load, so a graph over 10^6
 * genesis events is read as a few large values instead of 10^6 records.
 */
import { runInSlices, runToEnd, STEP_EVERY, type Steps } from '../analysis/time-slices.ts';
import { stringBytes, typedArrayBytes } from './metered-cache.ts';
import { storedWordsText } from './location-words.ts';

export interface GenesisSnapshot {
  ids: string[];
  /** Each event's time as an `InstantPoint` (src/analysis/instants.ts): seconds, and nanos after them. */
  seconds: Float64Array;
  nanos: Int32Array;
  place: Int32Array;
  placeNames: string[];
  causeOffsets: Int32Array;
  causeTargets: Int32Array;
  /** Causes naming an id outside this snapshot: (event index, cause id), resolved when the graph is read. */
  external: [number, string][];
  /**
   * Events whose times this snapshot holds rounded: beyond ±2^53 s in a snapshot written while times were plain
   * seconds (its header has no `points`). Their records give them exactly (`GenesisLevels.snapshot`).
   */
  rounded?: number[];
}

/** Heap bytes, roughly: ids are alike in length, so the first stands for all. */
export const snapshotBytes = (snapshot: GenesisSnapshot): number =>
  typedArrayBytes(snapshot) + snapshot.ids.length * (8 + stringBytes(snapshot.ids[0] ?? '')) + snapshot.external.length * 64;

interface Header {
  n: number;
  edges: number;
  idBytes: number;
  placeNames: string[];
  external: [number, string][];
  /** Times are `InstantPoint`s, exact in every supported year. */
  points?: true;
}

const MAGIC = 0x544d5347; // "TMSG"

export function encodeSnapshot(snapshot: GenesisSnapshot): Buffer {
  const [whole] = [...encodeSnapshotChunks(snapshot, Number.MAX_SAFE_INTEGER)];
  return whole!;
}

/**
 * The snapshot's bytes cut into pieces of `chunkBytes` (the last one shorter), each made when the one before has
 * been taken: a bulk load stores them as they come, so the whole encoding (42 MB at 10^6 events) is never held
 * at once, at the moment the load's memory peaks.
 */
export function* encodeSnapshotChunks(snapshot: GenesisSnapshot, chunkBytes: number): Generator<Buffer, void, undefined> {
  const n = snapshot.ids.length;
  let idBytes = Math.max(0, n - 1);
  for (const id of snapshot.ids) idBytes += Buffer.byteLength(id, 'utf8');
  const header: Header = {
    n,
    edges: snapshot.causeTargets.length,
    idBytes,
    placeNames: snapshot.placeNames,
    external: snapshot.external,
    points: true,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const headerEnd = align8(8 + headerBytes.length);
  const parts: ArrayBufferView[] = [snapshot.seconds, snapshot.nanos, snapshot.place, snapshot.causeOffsets, snapshot.causeTargets];
  const body = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const out = new ChunkedWriter(headerEnd + body + idBytes, chunkBytes);
  const start = Buffer.alloc(headerEnd);
  start.writeUInt32BE(MAGIC, 0);
  start.writeUInt32BE(headerBytes.length, 4);
  headerBytes.copy(start, 8);
  out.bytes(start);
  yield* out.filled();
  for (const part of parts) {
    out.bytes(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
    yield* out.filled();
  }
  for (let i = 0; i < n; i++) {
    if (i > 0) out.bytes(NEWLINE);
    out.text(snapshot.ids[i]!);
    if (out.hasFilled) yield* out.filled();
  }
  out.end();
  yield* out.filled();
}

const NEWLINE = Buffer.from('\n');

/** Writes a known number of bytes into chunks of a fixed size, handing out each chunk once it is full. */
class ChunkedWriter {
  private chunk: Buffer | undefined;
  private at = 0;
  private unallocated: number;
  private readonly full: Buffer[] = [];

  constructor(
    total: number,
    private readonly chunkBytes: number,
  ) {
    this.unallocated = total;
  }

  get hasFilled(): boolean {
    return this.full.length > 0;
  }

  *filled(): Generator<Buffer, void, undefined> {
    while (this.full.length > 0) yield this.full.shift()!;
  }

  bytes(source: Uint8Array): void {
    for (let from = 0; from < source.length; ) {
      const chunk = this.current();
      const take = Math.min(source.length - from, chunk.length - this.at);
      chunk.set(source.subarray(from, from + take), this.at);
      from += take;
      this.advance(take);
    }
  }

  end(): void {
    if (this.chunk || this.unallocated > 0) throw new Error('genesis snapshot: fewer bytes than counted');
  }

  /** Straight into the chunk where it surely fits (3 bytes a UTF-16 unit at most), through a copy where it may not. */
  text(value: string): void {
    if (value === '') return;
    const chunk = this.current();
    if (chunk.length - this.at >= value.length * 3) this.advance(chunk.write(value, this.at, 'utf8'));
    else this.bytes(Buffer.from(value, 'utf8'));
  }

  private current(): Buffer {
    if (!this.chunk) {
      const size = Math.min(this.chunkBytes, this.unallocated);
      if (size === 0) throw new Error('genesis snapshot: more bytes than counted');
      this.unallocated -= size;
      this.chunk = Buffer.allocUnsafe(size);
      this.at = 0;
    }
    return this.chunk;
  }

  private advance(count: number): void {
    this.at += count;
    if (this.at === this.chunk!.length) {
      this.full.push(this.chunk!);
      this.chunk = undefined;
    }
  }
}

export function decodeSnapshot(bytes: Buffer): GenesisSnapshot {
  return runToEnd(decodeSnapshotSteps([bytes]));
}

/** Decodes a snapshot stored in chunks (never joined into one buffer), giving the event loop a turn every few ms. */
export function decodeSnapshotInSlices(chunks: readonly Uint8Array[]): Promise<GenesisSnapshot> {
  return runInSlices(decodeSnapshotSteps(chunks));
}

/** Bytes of id text turned into strings per step (about 5000 ids of 13 characters, well under a ms). */
const ID_TEXT_STEP = 64 * 1024;
const STEP_MASK = STEP_EVERY - 1;
/** Bytes copied per step. */
const COPY_STEP = 1024 * 1024;

/** The concatenation of `chunks`, read without joining them. */
class ChunkedBytes {
  readonly length: number;
  private readonly chunks: readonly Uint8Array[];
  private readonly starts: number[] = [];

  constructor(chunks: readonly Uint8Array[]) {
    this.chunks = chunks;
    let length = 0;
    for (const chunk of chunks) {
      this.starts.push(length);
      length += chunk.length;
    }
    this.length = length;
  }

  /** Copies bytes [offset, offset + target.length) into `target`, yielding after every COPY_STEP bytes. */
  *copyInto(offset: number, target: Uint8Array): Steps<void> {
    if (offset + target.length > this.length) throw new Error('genesis snapshot: truncated');
    let written = 0;
    let sinceYield = 0;
    for (let c = 0; c < this.chunks.length && written < target.length; c++) {
      const chunk = this.chunks[c]!;
      const chunkEnd = this.starts[c]! + chunk.length;
      const at = offset + written;
      if (at >= chunkEnd) continue;
      for (let from = at - this.starts[c]!; from < chunk.length && written < target.length; ) {
        const take = Math.min(chunk.length - from, target.length - written, COPY_STEP - sinceYield);
        target.set(chunk.subarray(from, from + take), written);
        from += take;
        written += take;
        sinceYield += take;
        if (sinceYield >= COPY_STEP) {
          sinceYield = 0;
          yield;
        }
      }
    }
  }

  *read(offset: number, length: number): Steps<Buffer> {
    const out = Buffer.allocUnsafe(length);
    yield* this.copyInto(offset, out);
    return out;
  }
}

export function* decodeSnapshotSteps(chunks: readonly Uint8Array[]): Steps<GenesisSnapshot> {
  const bytes = new ChunkedBytes(chunks);
  const start = yield* bytes.read(0, Math.min(8, bytes.length));
  if (start.length < 8 || start.readUInt32BE(0) !== MAGIC) throw new Error('genesis snapshot: bad magic');
  const headerLength = start.readUInt32BE(4);
  const header = JSON.parse((yield* bytes.read(8, headerLength)).toString('utf8')) as Header;
  let offset = align8(8 + headerLength);
  function* take<T extends ArrayBufferView>(make: (length: number) => T, length: number): Steps<T> {
    const array = make(length);
    yield* bytes.copyInto(offset, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    offset += array.byteLength;
    return array;
  }
  const { n, edges } = header;
  const seconds = yield* take((length) => new Float64Array(length), n);
  const nanos = yield* take((length) => new Int32Array(length), n);
  const place = yield* take((length) => new Int32Array(length), n);
  const causeOffsets = yield* take((length) => new Int32Array(length), n + 1);
  const causeTargets = yield* take((length) => new Int32Array(length), edges);
  const idText = yield* bytes.read(offset, header.idBytes);
  const ids: string[] = [];
  // Ids never contain \n, and a \n byte is never part of a longer UTF-8 sequence: cutting there is safe.
  for (let from = 0; n > 0 && from <= idText.length; ) {
    let to = Math.min(idText.length, from + ID_TEXT_STEP);
    if (to < idText.length) {
      const newline = idText.indexOf(0x0a, to);
      to = newline < 0 ? idText.length : newline;
    }
    for (const id of idText.toString('utf8', from, to).split('\n')) ids.push(id);
    from = to + 1;
    yield;
  }
  if (ids.length !== n) throw new Error(`genesis snapshot: ${ids.length} ids for ${n} events`);
  const placeNames = header.placeNames.map(storedWordsText);
  const snapshot: GenesisSnapshot = { ids, seconds, nanos, place, placeNames, causeOffsets, causeTargets, external: header.external };
  if (!header.points) {
    const rounded: number[] = [];
    for (let i = 0; i < n; i++) {
      if (Math.abs(seconds[i]!) > Number.MAX_SAFE_INTEGER) rounded.push(i);
      if ((i & STEP_MASK) === STEP_MASK) yield;
    }
    if (rounded.length > 0) snapshot.rounded = rounded;
  }
  return snapshot;
}

function align8(value: number): number {
  return (value + 7) & ~7;
}

export const emptySnapshot = (): GenesisSnapshot => ({
  ids: [],
  seconds: new Float64Array(0),
  nanos: new Int32Array(0),
  place: new Int32Array(0),
  placeNames: [],
  causeOffsets: new Int32Array(1),
  causeTargets: new Int32Array(0),
  external: [],
});

class GrowableFloat64 {
  array = new Float64Array(1024);
  length = 0;
  set(index: number, value: number): void {
    if (index >= this.array.length) {
      const next = new Float64Array(Math.max(index + 1, this.array.length * 2));
      next.set(this.array);
      this.array = next;
    }
    this.array[index] = value;
    if (index >= this.length) this.length = index + 1;
  }
}

class GrowableInt32 {
  array = new Int32Array(1024);
  length = 0;
  set(index: number, value: number): void {
    if (index >= this.array.length) {
      const next = new Int32Array(Math.max(index + 1, this.array.length * 2));
      next.set(this.array);
      this.array = next;
    }
    this.array[index] = value;
    if (index >= this.length) this.length = index + 1;
  }
  push(value: number): void {
    this.set(this.length, value);
  }
}

/**
 * Collects genesis events during a bulk load (appending to an existing snapshot of the level) in typed
 * arrays: causes already loaded are stored as indexes at once, so the loader keeps no cause strings. An id
 * seen again replaces its earlier entry, so re-running an interrupted load gives the same snapshot.
 */
export class GenesisAccumulator {
  private readonly ids: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly seconds = new GrowableFloat64();
  private readonly nanos = new GrowableInt32();
  private readonly place = new GrowableInt32();
  /** Causes of event i: targets[causeStart[i] .. causeStart[i] + causeCount[i]), -1 where `unresolved` holds the id. */
  private readonly causeStart = new GrowableInt32();
  private readonly causeCount = new GrowableInt32();
  private readonly targets = new GrowableInt32();
  /** Slot in `targets` → a cause id not loaded yet when its effect was. */
  private readonly unresolved = new Map<number, string>();
  private readonly placeNames: string[] = [];
  private readonly placeIndex = new Map<string, number>();
  /** Events per place: word statistics are derived from it at the end. */
  private readonly placeEvents = new GrowableInt32();

  constructor(existing?: GenesisSnapshot) {
    if (!existing) return;
    const externalByEvent = new Map<number, string[]>();
    for (const [event, cause] of existing.external) {
      const list = externalByEvent.get(event) ?? [];
      list.push(cause);
      externalByEvent.set(event, list);
    }
    for (let i = 0; i < existing.ids.length; i++) {
      const causes: string[] = [];
      for (let k = existing.causeOffsets[i]!; k < existing.causeOffsets[i + 1]!; k++) causes.push(existing.ids[existing.causeTargets[k]!]!);
      causes.push(...(externalByEvent.get(i) ?? []));
      this.add(existing.ids[i]!, existing.seconds[i]!, existing.nanos[i]!, existing.placeNames[existing.place[i]!] ?? '', causes);
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /** The time `id` was last added with (an `InstantPoint`); undefined when not added. */
  timeOf(id: string): { seconds: number; nanos: number } | undefined {
    const at = this.index.get(id);
    return at === undefined ? undefined : { seconds: this.seconds.array[at]!, nanos: this.nanos.array[at]! };
  }

  add(id: string, seconds: number, nanos: number, placeName: string, causes: readonly string[]): void {
    let at = this.index.get(id);
    if (at === undefined) {
      at = this.ids.length;
      this.index.set(id, at);
      this.ids.push(id);
    } else {
      const replaced = this.place.array[at]!;
      this.placeEvents.set(replaced, this.placeEvents.array[replaced]! - 1);
    }
    this.seconds.set(at, seconds);
    this.nanos.set(at, nanos);
    const place = this.intern(placeName);
    this.place.set(at, place);
    this.placeEvents.set(place, (this.placeEvents.array[place] ?? 0) + 1);
    this.causeStart.set(at, this.targets.length);
    this.causeCount.set(at, causes.length);
    for (const cause of causes) {
      const target = this.index.get(cause);
      if (target === undefined) this.unresolved.set(this.targets.length, cause);
      this.targets.push(target ?? -1);
    }
  }

  private intern(name: string): number {
    let number = this.placeIndex.get(name);
    if (number === undefined) {
      number = this.placeNames.length;
      this.placeNames.push(name);
      this.placeIndex.set(name, number);
      this.placeEvents.set(number, 0);
    }
    return number;
  }

  /**
   * Location words that occur in at least 1% of the events (and 100 of them), with their counts: a search
   * drives its range read by the rarest word it asks for.
   */
  frequentWords(): Record<string, number> {
    const counts = new Map<string, number>();
    for (let place = 0; place < this.placeNames.length; place++) {
      const events = this.placeEvents.array[place]!;
      for (const word of new Set(this.placeNames[place]!.split(' '))) if (word) counts.set(word, (counts.get(word) ?? 0) + events);
    }
    const threshold = Math.max(100, this.ids.length / 100);
    const frequent = [...counts].filter(([, count]) => count >= threshold).sort((a, b) => b[1] - a[1]).slice(0, 256);
    return Object.fromEntries(frequent);
  }

  /** The snapshot of what was added; nothing may be added after. */
  build(): GenesisSnapshot {
    const n = this.ids.length;
    const causeOffsets = new Int32Array(n + 1);
    let edges = 0;
    for (let i = 0; i < n; i++) edges += this.causeCount.array[i]!;
    const causeTargets = new Int32Array(edges);
    const external: [number, string][] = [];
    let written = 0;
    for (let i = 0; i < n; i++) {
      const start = this.causeStart.array[i]!;
      const end = start + this.causeCount.array[i]!;
      for (let slot = start; slot < end; slot++) {
        let target = this.targets.array[slot]!;
        if (target < 0) {
          const cause = this.unresolved.get(slot)!;
          target = this.index.get(cause) ?? -1;
          if (target < 0) {
            external.push([i, cause]);
            continue;
          }
        }
        causeTargets[written++] = target;
      }
      causeOffsets[i + 1] = written;
    }
    // Views, not copies (35 MB at 10^6 events, at a load's peak): the accumulator is done with once built.
    return {
      ids: this.ids,
      seconds: this.seconds.array.subarray(0, n),
      nanos: this.nanos.array.subarray(0, n),
      place: this.place.array.subarray(0, n),
      placeNames: this.placeNames,
      causeOffsets,
      causeTargets: causeTargets.subarray(0, written),
      external,
    };
  }
}
