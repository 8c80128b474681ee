/**
 * Builds the analysis hand-off graph of a timeline: the genesis snapshots of its chain (typed arrays, read
 * once) patched with the events changed since (few, from memory and version reads). Nodes are the events
 * that stand; causes resolve through `superseded_by` to the event standing now, or are dropped.
 *
 * The build is linear in the chain's events (a few hundred ms for 10^6) and runs on the request thread,
 * where the graph's id list must live, so it is written as steps that yield every few thousand events:
 * `buildCausalGraphInSlices` gives the event loop a turn every few ms. The graph's typed arrays are in
 * shared memory, so analyses on workers read them in place and a cached graph is never detached.
 */
import type { CausalGraph } from '../analysis/causal-graph.ts';
import { runInSlices, runToEnd, STEP_EVERY, type Steps } from '../analysis/time-slices.ts';
import { stands } from './event-codec.ts';
import type { GenesisSnapshot } from './genesis-snapshot.ts';
import { NodeNumbering, recordNodeFields, writeNodeFields } from './graph-node-fields.ts';
import type { EventRecord } from './types.ts';

const MAX_SUCCESSION = 10_000;
const STEP_MASK = STEP_EVERY - 1;

/** The number of a place name in `names`, adding it the first time it is seen. */
function internPlace(names: string[], index: Map<string, number>, name: string): number {
  let number = index.get(name);
  if (number === undefined) {
    number = names.length;
    names.push(name);
    index.set(name, number);
  }
  return number;
}

export const sharedFloat64 = (length: number) => new Float64Array(new SharedArrayBuffer(8 * length));
export const sharedInt32 = (length: number) => new Int32Array(new SharedArrayBuffer(4 * length));
export const sharedUint8 = (length: number) => new Uint8Array(new SharedArrayBuffer(length));

/** A full build with the numbering of its places and travellers, for a graph kept up to date from it. */
export interface BuiltGraph {
  graph: CausalGraph;
  numbering: NodeNumbering;
}

/** Merges the snapshots of several genesis levels (rare: bulk loads into branches) into one. */
export function concatSnapshots(snapshots: GenesisSnapshot[]): GenesisSnapshot {
  return runToEnd(concatSnapshotSteps(snapshots));
}

export function* concatSnapshotSteps(snapshots: GenesisSnapshot[]): Steps<GenesisSnapshot> {
  if (snapshots.length === 1) return snapshots[0]!;
  const placeNames: string[] = [];
  const placeIndex = new Map<string, number>();
  const ids: string[] = [];
  const seconds: number[] = [];
  const nanos: number[] = [];
  const place: number[] = [];
  const offsets: number[] = [0];
  const targets: number[] = [];
  const external: [number, string][] = [];
  for (const snapshot of snapshots) {
    const base = ids.length;
    const placeMap = snapshot.placeNames.map((name) => internPlace(placeNames, placeIndex, name));
    for (let i = 0; i < snapshot.ids.length; i++) {
      if ((i & STEP_MASK) === STEP_MASK) yield;
      ids.push(snapshot.ids[i]!);
      seconds.push(snapshot.seconds[i]!);
      nanos.push(snapshot.nanos[i]!);
      place.push(placeMap[snapshot.place[i]!]!);
      for (let k = snapshot.causeOffsets[i]!; k < snapshot.causeOffsets[i + 1]!; k++) targets.push(base + snapshot.causeTargets[k]!);
      offsets.push(targets.length);
    }
    for (const [event, cause] of snapshot.external) external.push([base + event, cause]);
  }
  yield;
  return {
    ids,
    seconds: Float64Array.from(seconds),
    nanos: Int32Array.from(nanos),
    place: Int32Array.from(place),
    placeNames,
    causeOffsets: Int32Array.from(offsets),
    causeTargets: Int32Array.from(targets),
    external,
  };
}

/**
 * `genesis`: the chain's genesis events. `changed`: the standing-or-not version, as seen on the timeline, of
 * every event that has a version above genesis in the chain (overlay included). Events absent from both are
 * not on the timeline. Runs in one go: for small graphs and tests.
 */
export function buildCausalGraph(genesis: GenesisSnapshot, changed: Map<string, EventRecord>): CausalGraph {
  return runToEnd(causalGraphSteps(genesis, changed));
}

/** The same build, giving the event loop a turn every `sliceMs` (default 4 ms). */
export function buildCausalGraphInSlices(genesis: GenesisSnapshot, changed: Map<string, EventRecord>, sliceMs?: number): Promise<CausalGraph> {
  return runInSlices(causalGraphSteps(genesis, changed), sliceMs);
}

/** The build as steps: it yields every STEP_EVERY events of each pass. */
export function* causalGraphSteps(genesis: GenesisSnapshot, changed: Map<string, EventRecord>): Steps<CausalGraph> {
  return (yield* builtGraphSteps(genesis, changed)).graph;
}

export function* builtGraphSteps(genesis: GenesisSnapshot, changed: Map<string, EventRecord>): Steps<BuiltGraph> {
  const g = genesis.ids.length;
  const wanted = new Set<string>(changed.keys());
  let causeBound = genesis.causeTargets.length + genesis.external.length;
  for (const record of changed.values()) {
    if (!stands(record)) continue;
    causeBound += record.causes.length;
    for (const cause of record.causes) wanted.add(cause);
  }
  for (const [, cause] of genesis.external) wanted.add(cause);
  const genesisIndex = new Map<string, number>();
  if (wanted.size > 0) {
    for (let i = 0; i < g; i++) {
      if ((i & STEP_MASK) === STEP_MASK) yield;
      const id = genesis.ids[i]!;
      if (wanted.has(id)) genesisIndex.set(id, i);
    }
  }

  const removed = new Uint8Array(g);
  const replaced = new Map<number, EventRecord>();
  const appended: EventRecord[] = [];
  for (const [id, record] of changed) {
    const at = genesisIndex.get(id);
    if (at !== undefined) {
      if (stands(record)) replaced.set(at, record);
      else removed[at] = 1;
    } else if (stands(record)) appended.push(record);
  }
  yield;

  const newIndex = new Int32Array(g);
  let n = 0;
  for (let i = 0; i < g; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    newIndex[i] = removed[i] ? -1 : n++;
  }
  const appendedIndex = new Map<string, number>();
  for (const record of appended) appendedIndex.set(record.event_id, n++);

  const finalIndex = new Map<string, number>();
  const resolve = (start: string): number => {
    const known = finalIndex.get(start);
    if (known !== undefined) return known;
    let id = start;
    let result = -1;
    for (let step = 0; step < MAX_SUCCESSION; step++) {
      const record = changed.get(id);
      if (record) {
        if (stands(record)) {
          const at = genesisIndex.get(id);
          result = at !== undefined ? newIndex[at]! : (appendedIndex.get(id) ?? -1);
          break;
        }
        if (record.superseded_by === undefined) break;
        id = record.superseded_by;
        continue;
      }
      const at = genesisIndex.get(id);
      if (at !== undefined && !removed[at]) result = newIndex[at]!;
      break;
    }
    finalIndex.set(start, result);
    return result;
  };

  const externalByEvent = new Map<number, string[]>();
  for (const [event, cause] of genesis.external) {
    const list = externalByEvent.get(event) ?? [];
    list.push(cause);
    externalByEvent.set(event, list);
  }
  const redirected = new Int32Array(g);
  for (let i = 0; i < g; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    redirected[i] = removed[i] ? resolve(genesis.ids[i]!) : newIndex[i]!;
  }

  const numbering = new NodeNumbering(genesis.placeNames.slice());

  // Nothing removed, replaced or added: the node ids are the genesis ids, in order (shared, not copied).
  // Otherwise a new list, allocated in a step of its own: 10^6 slots take several ms to map (growing
  // it by pushes would cost that several times over).
  const sameIds = n === g && appended.length === 0 && replaced.size === 0;
  yield;
  const eventIds: string[] = sameIds ? genesis.ids : new Array<string>(n);
  yield;
  // The kept graph appends nodes to these (live-causal-graph.ts): room for them now is memory not yet touched,
  // where growing later would copy every field into fresh memory at once (~100 ms at 10^6 nodes here).
  const room = withRoom(n);
  const graph: CausalGraph = {
    eventIds,
    seconds: sharedFloat64(room).subarray(0, n),
    nanos: sharedInt32(room).subarray(0, n),
    state: sharedUint8(n),
    causeOffsets: sharedInt32(n + 1),
    causeTargets: sharedInt32(withRoom(causeBound)),
    manipulatedAtMs: sharedFloat64(room).subarray(0, n),
    traveller: sharedInt32(room).subarray(0, n),
    place: sharedInt32(room).subarray(0, n),
  };
  const targets = graph.causeTargets;
  let edges = 0;

  const pushUnique = (node: number, start: number, target: number): void => {
    if (target < 0 || target === node) return;
    for (let k = start; k < edges; k++) if (targets[k] === target) return;
    targets[edges++] = target;
  };
  const fillFromRecord = (node: number, record: EventRecord): void => {
    const fields = recordNodeFields(record, numbering);
    eventIds[node] = record.event_id;
    writeNodeFields(graph, node, fields);
    graph.state[node] = fields.state;
    const start = edges;
    for (const cause of record.causes) pushUnique(node, start, resolve(cause));
  };

  for (let i = 0; i < g; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    const node = newIndex[i]!;
    if (node < 0) continue;
    const record = replaced.get(i);
    if (record) fillFromRecord(node, record);
    else {
      if (!sameIds) eventIds[node] = genesis.ids[i]!;
      graph.traveller[node] = -1;
      graph.seconds[node] = genesis.seconds[i]!;
      graph.nanos[node] = genesis.nanos[i]!;
      graph.place[node] = genesis.place[i]!;
      const start = edges;
      const from = genesis.causeOffsets[i]!;
      const to = genesis.causeOffsets[i + 1]!;
      for (let k = from; k < to; k++) {
        const cause = genesis.causeTargets[k]!;
        const target = redirected[cause]!;
        if (removed[cause]) pushUnique(node, start, target);
        else if (target >= 0 && target !== node) targets[edges++] = target;
      }
      const external = externalByEvent.get(i);
      if (external) for (const cause of external) pushUnique(node, start, resolve(cause));
    }
    graph.causeOffsets[node + 1] = edges;
  }
  for (const record of appended) {
    const node = appendedIndex.get(record.event_id)!;
    fillFromRecord(node, record);
    graph.causeOffsets[node + 1] = edges;
  }
  // Fewer edges than the bound (causes merged or unresolved): copied, so the bound's excess is not kept.
  graph.causeTargets = edges < causeBound ? yield* sharedPrefix(targets, edges) : targets.subarray(0, edges);
  return { graph, numbering };
}

/** Capacity for `length` entries and the appends of many writes after them. */
export const withRoom = (length: number): number => length + Math.max(1024, length >> 3);

/** The first `length` entries of `array`, copied a few MB at a time into shared memory with room to append. */
function* sharedPrefix(array: Int32Array, length: number): Steps<Int32Array> {
  const copy = sharedInt32(withRoom(length)).subarray(0, length);
  const step = STEP_EVERY * 256;
  for (let from = 0; from < length; from += step) {
    yield;
    copy.set(array.subarray(from, Math.min(length, from + step)), from);
  }
  return copy;
}
