/**
 * The genesis snapshot: the bulk-loaded events of one level in the causal graph's own compact form
 * (times, interned places, causes as CSR), written at the end of every bulk load, so a graph over 10^6
 * genesis events is read as a few large values instead of 10^6 records.
 */
export interface GenesisSnapshot {
  ids: string[];
  seconds: Float64Array;
  nanos: Int32Array;
  place: Int32Array;
  placeNames: string[];
  causeOffsets: Int32Array;
  causeTargets: Int32Array;
  /** Causes naming an id outside this snapshot: (event index, cause id), resolved when the graph is read. */
  external: [number, string][];
}

interface Header {
  n: number;
  edges: number;
  idBytes: number;
  placeNames: string[];
  external: [number, string][];
}

const MAGIC = 0x544d5347; // "TMSG"

export function encodeSnapshot(snapshot: GenesisSnapshot): Buffer {
  const ids = Buffer.from(snapshot.ids.join('\n'), 'utf8');
  const n = snapshot.ids.length;
  const header: Header = {
    n,
    edges: snapshot.causeTargets.length,
    idBytes: ids.length,
    placeNames: snapshot.placeNames,
    external: snapshot.external,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const headerEnd = align8(8 + headerBytes.length);
  const parts: ArrayBufferView[] = [snapshot.seconds, snapshot.nanos, snapshot.place, snapshot.causeOffsets, snapshot.causeTargets];
  const body = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const out = Buffer.alloc(headerEnd + body + ids.length);
  out.writeUInt32BE(MAGIC, 0);
  out.writeUInt32BE(headerBytes.length, 4);
  headerBytes.copy(out, 8);
  let offset = headerEnd;
  for (const part of parts) {
    out.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), offset);
    offset += part.byteLength;
  }
  ids.copy(out, offset);
  return out;
}

export function decodeSnapshot(bytes: Buffer): GenesisSnapshot {
  if (bytes.length < 8 || bytes.readUInt32BE(0) !== MAGIC) throw new Error('genesis snapshot: bad magic');
  const headerLength = bytes.readUInt32BE(4);
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as Header;
  let offset = align8(8 + headerLength);
  const take = (byteLength: number): ArrayBuffer => {
    const slice = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + byteLength);
    offset += byteLength;
    return slice as ArrayBuffer;
  };
  const { n, edges } = header;
  const seconds = new Float64Array(take(8 * n));
  const nanos = new Int32Array(take(4 * n));
  const place = new Int32Array(take(4 * n));
  const causeOffsets = new Int32Array(take(4 * (n + 1)));
  const causeTargets = new Int32Array(take(4 * edges));
  const idText = bytes.toString('utf8', offset, offset + header.idBytes);
  const ids = n === 0 ? [] : idText.split('\n');
  return { ids, seconds, nanos, place, placeNames: header.placeNames, causeOffsets, causeTargets, external: header.external };
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

/**
 * Collects genesis events during a bulk load (appending to an existing snapshot of the level). An id seen
 * again replaces its earlier entry, so re-running an interrupted load gives the same snapshot.
 */
export class GenesisAccumulator {
  private readonly ids: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly seconds: number[] = [];
  private readonly nanos: number[] = [];
  private readonly place: number[] = [];
  private readonly causeStart: number[] = [];
  private readonly causeCount: number[] = [];
  private readonly causeIds: string[] = [];
  private readonly placeNames: string[] = [];
  private readonly placeIndex = new Map<string, number>();

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

  add(id: string, seconds: number, nanos: number, placeName: string, causes: readonly string[]): void {
    let at = this.index.get(id);
    if (at === undefined) {
      at = this.ids.length;
      this.index.set(id, at);
      this.ids.push(id);
    }
    this.seconds[at] = seconds;
    this.nanos[at] = nanos;
    this.place[at] = this.intern(placeName);
    this.causeStart[at] = this.causeIds.length;
    this.causeCount[at] = causes.length;
    for (const cause of causes) this.causeIds.push(cause);
  }

  private intern(name: string): number {
    let number = this.placeIndex.get(name);
    if (number === undefined) {
      number = this.placeNames.length;
      this.placeNames.push(name);
      this.placeIndex.set(name, number);
    }
    return number;
  }

  build(): GenesisSnapshot {
    const n = this.ids.length;
    const causeOffsets = new Int32Array(n + 1);
    const targets: number[] = [];
    const external: [number, string][] = [];
    for (let i = 0; i < n; i++) {
      const start = this.causeStart[i]!;
      for (let k = start; k < start + this.causeCount[i]!; k++) {
        const cause = this.causeIds[k]!;
        const target = this.index.get(cause);
        if (target === undefined) external.push([i, cause]);
        else targets.push(target);
      }
      causeOffsets[i + 1] = targets.length;
    }
    return {
      ids: this.ids.slice(),
      seconds: Float64Array.from(this.seconds),
      nanos: Int32Array.from(this.nanos),
      place: Int32Array.from(this.place),
      placeNames: this.placeNames.slice(),
      causeOffsets,
      causeTargets: Int32Array.from(targets),
      external,
    };
  }
}
