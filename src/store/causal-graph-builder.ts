/**
 * Builds the analysis hand-off graph of a timeline: the genesis snapshots of its chain (typed arrays, read
 * once) patched with the events changed since (few, from memory and version reads). Nodes are the events
 * that stand; causes resolve through `superseded_by` to the event standing now, or are dropped.
 */
import { EventState, type CausalGraph } from '../analysis/causal-graph.ts';
import { parseInstant } from '../time/index.ts';
import { stands } from './event-codec.ts';
import type { GenesisSnapshot } from './genesis-snapshot.ts';
import { locationWords } from './location-words.ts';
import type { EventRecord } from './types.ts';

const MAX_SUCCESSION = 10_000;

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

/** Merges the snapshots of several genesis levels (rare: bulk loads into branches) into one. */
export function concatSnapshots(snapshots: GenesisSnapshot[]): GenesisSnapshot {
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
      ids.push(snapshot.ids[i]!);
      seconds.push(snapshot.seconds[i]!);
      nanos.push(snapshot.nanos[i]!);
      place.push(placeMap[snapshot.place[i]!]!);
      for (let k = snapshot.causeOffsets[i]!; k < snapshot.causeOffsets[i + 1]!; k++) targets.push(base + snapshot.causeTargets[k]!);
      offsets.push(targets.length);
    }
    for (const [event, cause] of snapshot.external) external.push([base + event, cause]);
  }
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

class GrowableInt32 {
  array: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.array = new Int32Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.length === this.array.length) {
      const next = new Int32Array(this.array.length * 2);
      next.set(this.array);
      this.array = next;
    }
    this.array[this.length++] = value;
  }
}

/**
 * `genesis`: the chain's genesis events. `changed`: the standing-or-not version, as seen on the timeline, of
 * every event that has a version above genesis in the chain (overlay included). Events absent from both are
 * not on the timeline.
 */
export function buildCausalGraph(genesis: GenesisSnapshot, changed: Map<string, EventRecord>): CausalGraph {
  const g = genesis.ids.length;
  const wanted = new Set<string>(changed.keys());
  for (const record of changed.values()) if (stands(record)) for (const cause of record.causes) wanted.add(cause);
  for (const [, cause] of genesis.external) wanted.add(cause);
  const genesisIndex = new Map<string, number>();
  if (wanted.size > 0) {
    for (let i = 0; i < g; i++) {
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

  const newIndex = new Int32Array(g);
  let n = 0;
  for (let i = 0; i < g; i++) newIndex[i] = removed[i] ? -1 : n++;
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
  for (let i = 0; i < g; i++) redirected[i] = removed[i] ? resolve(genesis.ids[i]!) : newIndex[i]!;

  const placeNames = genesis.placeNames.slice();
  let placeIndex: Map<string, number> | undefined;
  const placeOf = (location: string): number => {
    placeIndex ??= new Map(placeNames.map((name, i) => [name, i]));
    return internPlace(placeNames, placeIndex, locationWords(location).join(' '));
  };
  const travellers = new Map<string, number>();
  const travellerOf = (record: EventRecord): number => {
    if (record.kind !== 'arrival' || record.traveller === undefined) return -1;
    let number = travellers.get(record.traveller);
    if (number === undefined) {
      number = travellers.size;
      travellers.set(record.traveller, number);
    }
    return number;
  };

  const graph: CausalGraph = {
    eventIds: new Array<string>(n),
    seconds: new Float64Array(n),
    nanos: new Int32Array(n),
    state: new Uint8Array(n),
    causeOffsets: new Int32Array(n + 1),
    causeTargets: new Int32Array(0),
    manipulatedAtMs: new Float64Array(n),
    traveller: new Int32Array(n).fill(-1),
    place: new Int32Array(n),
  };
  const targets = new GrowableInt32(genesis.causeTargets.length + 16);

  const pushUnique = (node: number, start: number, target: number): void => {
    if (target < 0 || target === node) return;
    for (let k = start; k < targets.length; k++) if (targets.array[k] === target) return;
    targets.push(target);
  };
  const fillFromRecord = (node: number, record: EventRecord): void => {
    const time = parseInstant(record.time);
    graph.eventIds[node] = record.event_id;
    graph.seconds[node] = Number(time.seconds);
    graph.nanos[node] = time.nanos;
    graph.state[node] = record.status === 'cancelled' ? EventState.cancelled : EventState.happens;
    graph.place[node] = placeOf(record.location);
    graph.traveller[node] = travellerOf(record);
    const manipulated = record.supersedes !== undefined && (record.status === 'manipulated' || record.status === 'cancelled');
    graph.manipulatedAtMs[node] = manipulated && record.created_at ? Date.parse(record.created_at) || 0 : 0;
    const start = targets.length;
    for (const cause of record.causes) pushUnique(node, start, resolve(cause));
  };

  for (let i = 0; i < g; i++) {
    const node = newIndex[i]!;
    if (node < 0) continue;
    const record = replaced.get(i);
    if (record) fillFromRecord(node, record);
    else {
      graph.eventIds[node] = genesis.ids[i]!;
      graph.seconds[node] = genesis.seconds[i]!;
      graph.nanos[node] = genesis.nanos[i]!;
      graph.place[node] = genesis.place[i]!;
      const start = targets.length;
      const from = genesis.causeOffsets[i]!;
      const to = genesis.causeOffsets[i + 1]!;
      for (let k = from; k < to; k++) {
        const cause = genesis.causeTargets[k]!;
        const target = redirected[cause]!;
        if (removed[cause]) pushUnique(node, start, target);
        else if (target >= 0 && target !== node) targets.push(target);
      }
      const external = externalByEvent.get(i);
      if (external) for (const cause of external) pushUnique(node, start, resolve(cause));
    }
    graph.causeOffsets[node + 1] = targets.length;
  }
  for (const record of appended) {
    const node = appendedIndex.get(record.event_id)!;
    fillFromRecord(node, record);
    graph.causeOffsets[node + 1] = targets.length;
  }
  graph.causeTargets = targets.array.slice(0, targets.length);
  return graph;
}
