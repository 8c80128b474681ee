/**
 * A timeline's causal graph kept up to date change by change (design: docs/performance.md, "The causal graph
 * between writes"). It starts from a full build and then takes deltas: the new version of each event whose
 * version changed. A node never moves: an event that stops standing leaves a `gone` node behind, an event
 * that stands anew (or in a new version) is appended, and only the rows that named what changed are written
 * again, at the end of the targets. So a delta costs what it touches, whatever the timeline's size.
 *
 * Readers get views. The node fields and targets live in shared memory that is only ever appended to, past
 * every view's end, so views share them; state and row bounds are the only entries a delta rewrites, and a
 * view gets its own copy of them (9 bytes a node). So an analysis running on an older view never sees a
 * later delta. A view's own arrays are reused for a later view once it is superseded and every reader that
 * held it (`hold`) has let go: memory touched for the first time costs ~3.5 ms a MiB here, so copying into
 * fresh memory after each write stalled the request thread ~30 ms at 10^6 nodes (docs/performance.md).
 */
import { EventState, type CausalGraph } from '../analysis/causal-graph.ts';
import { STEP_EVERY, type Steps } from '../analysis/time-slices.ts';
import type { BuiltGraph } from './causal-graph-builder.ts';
import { sharedFloat64, sharedInt32, sharedUint8, withRoom } from './causal-graph-builder.ts';
import { stands } from './event-codec.ts';
import type { GenesisSnapshot } from './genesis-snapshot.ts';
import { recordNodeFields, writeNodeFields, type NodeNumbering } from './graph-node-fields.ts';
import { IdPositions } from './id-positions.ts';
import { ReverseCauses } from './reverse-causes.ts';
import type { EventRecord } from './types.ts';

const MAX_SUCCESSION = 10_000;
const STEP_MASK = STEP_EVERY - 1;
/** Gone nodes allowed before the graph asks to be built again: a quarter of its nodes, and at least this many. */
const MIN_GONE_BEFORE_REBUILD = 4096;

/** Where a cause id leads: the node standing for it, or -1 and the id where the succession stopped. */
interface Resolution {
  node: number;
  stoppedAt: string;
}

/** What a delta replaced, so that an overlay can be taken back. */
interface Journal {
  records: Map<string, EventRecord | undefined>;
  positions: Map<string, number>;
  nodes: Map<number, [state: number, start: number, end: number]>;
  gone: number;
  /** Nodes before the delta: the ones it appended stay, gone. */
  n: number;
}

/** Superseded views' arrays kept for reuse: one for the view an analysis still holds, one ready. */
const MAX_SPARE_VIEWS = 2;

/** The arrays a view owns, with room to grow; shared memory, reused once no reader holds the view. */
interface ViewArrays {
  state: Uint8Array;
  offsets: Int32Array;
  ends: Int32Array;
  readers: number;
  /** The graph's current view: not reusable whoever holds it. */
  current: boolean;
}

/**
 * The array over its whole buffer: a build's array with the room the build left after it (each has a shared
 * buffer of its own, from its start). Any other array is taken as it is.
 */
const ownsWholeBuffer = (array: Float64Array | Int32Array): boolean => array.byteOffset === 0 && array.buffer instanceof SharedArrayBuffer;
const wholeFloat64 = (array: Float64Array): Float64Array => (ownsWholeBuffer(array) ? new Float64Array(array.buffer) : array);
const wholeInt32 = (array: Int32Array): Int32Array => (ownsWholeBuffer(array) ? new Int32Array(array.buffer) : array);

function grown<T extends Float64Array | Int32Array>(array: T, needed: number, make: (length: number) => T): T {
  if (needed <= array.length) return array;
  const next = make(Math.max(needed, Math.ceil(array.length * 1.5) + 1024));
  next.set(array);
  return next;
}

export class LiveCausalGraph {
  private n: number;
  private seconds: Float64Array;
  private nanos: Int32Array;
  private manipulatedAtMs: Float64Array;
  private traveller: Int32Array;
  private place: Int32Array;
  private targets: Int32Array;
  private usedTargets: number;
  /** The current state and row bounds: private, copied into each view. */
  private state: Uint8Array;
  private starts: Int32Array;
  private ends: Int32Array;
  private readonly eventIds: string[];
  private readonly positions: IdPositions;
  /** Node → its genesis event (untouched since the build), or -1 for a node built from a record. */
  private readonly genesisAt: Int32Array;
  private readonly externalCauses = new Map<number, string[]>();
  /** Cause ids that lead nowhere now, with the nodes naming them: they are looked at again when that id changes. */
  private readonly waiting = new Map<string, Set<number>>();
  private readonly reverse: ReverseCauses;
  private readonly numbering: NodeNumbering;
  private gone = 0;
  private view_: CausalGraph;
  private journal: Journal | undefined;
  private readonly viewArrays = new WeakMap<CausalGraph, ViewArrays>();
  private spares: ViewArrays[] = [];

  private constructor(
    built: BuiltGraph,
    private readonly genesis: GenesisSnapshot,
    /** The standing-or-not version of every event with a version above genesis (the build's `changed`). */
    private readonly records: Map<string, EventRecord>,
  ) {
    const { graph } = built;
    this.numbering = built.numbering;
    this.view_ = graph;
    this.n = graph.seconds.length;
    // The build leaves room past the end of these (withRoom): appends use it before anything is copied.
    this.seconds = wholeFloat64(graph.seconds);
    this.nanos = wholeInt32(graph.nanos);
    this.manipulatedAtMs = wholeFloat64(graph.manipulatedAtMs);
    this.traveller = wholeInt32(graph.traveller);
    this.place = wholeInt32(graph.place);
    this.targets = wholeInt32(graph.causeTargets);
    this.usedTargets = graph.causeTargets.length;
    const capacity = Math.min(this.seconds.length, this.nanos.length, this.manipulatedAtMs.length, this.traveller.length, this.place.length);
    this.state = new Uint8Array(capacity);
    this.state.set(graph.state);
    this.starts = new Int32Array(capacity);
    this.starts.set(graph.causeOffsets.subarray(0, this.n));
    this.ends = new Int32Array(capacity);
    this.ends.set(graph.causeOffsets.subarray(1));
    this.eventIds = graph.eventIds.slice();
    this.positions = new IdPositions(this.eventIds);
    this.genesisAt = new Int32Array(this.n).fill(-1);
    this.reverse = new ReverseCauses(this.n);
  }

  /** Takes over a full build of `genesis` patched with `records`; yields every few thousand events. */
  static *fromBuildSteps(built: BuiltGraph, genesis: GenesisSnapshot, records: Map<string, EventRecord>): Steps<LiveCausalGraph> {
    const live = new LiveCausalGraph(built, genesis, records);
    yield* live.positions.indexSteps(live.n);
    yield* live.findGenesisNodes();
    for (const [event, cause] of genesis.external) {
      const list = live.externalCauses.get(event) ?? [];
      list.push(cause);
      live.externalCauses.set(event, list);
    }
    yield* live.reverse.indexSteps(live.starts, live.ends, live.targets);
    yield* live.findWaitingCauses();
    return live;
  }

  /** The graph as it stands: the same object until the next delta. */
  view(): CausalGraph {
    return this.view_;
  }

  /**
   * Keeps a view's arrays from being reused until the returned function is called (once the analysis reading
   * them has finished). A view never held is never reused.
   */
  hold(view: CausalGraph): () => void {
    const arrays = this.viewArrays.get(view);
    if (!arrays) return () => undefined;
    arrays.readers++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--arrays.readers === 0 && !arrays.current) this.spare(arrays);
    };
  }

  /** Too many gone nodes: a full build would be smaller and faster to analyse. */
  get wantsRebuild(): boolean {
    return this.gone > Math.max(MIN_GONE_BEFORE_REBUILD, this.n / 4);
  }

  /** Applies the new versions (at most a few per write) of the events whose visible version changed. */
  apply(changes: ReadonlyMap<string, EventRecord>): void {
    if (changes.size === 0) return;
    const rows = new Set<number>();
    const leaving: number[] = [];
    for (const id of changes.keys()) {
      const before = this.resolve(id);
      if (before.node >= 0) {
        for (const effect of this.reverse.effectsOf(before.node)) rows.add(effect);
        if (this.eventIds[before.node] === id) leaving.push(before.node);
      } else this.takeWaiting(before.stoppedAt, rows);
      this.takeWaiting(id, rows);
    }
    for (const node of leaving) this.setGone(node);
    for (const [id, record] of changes) this.setRecord(id, record);
    for (const [id, record] of changes) {
      if (!stands(record)) continue;
      const node = this.append(record);
      this.setPosition(id, node);
      rows.add(node);
    }
    for (const node of rows) if (this.state[node] !== EventState.gone) this.writeRow(node);
    // An overlay's view is never current: the journal puts the graph back as it was. Otherwise the view it
    // supersedes goes first, so that the new one may take its arrays when no reader holds them.
    if (this.journal === undefined) this.retire(this.view_);
    const next = this.freshView();
    if (this.journal === undefined) this.viewArrays.get(next)!.current = true;
    this.view_ = next;
  }

  /** The graph as it would stand with `records` written, built on this one and leaving it as it was. */
  overlaid(records: readonly EventRecord[]): CausalGraph {
    const current = this.view_;
    this.journal = { records: new Map(), positions: new Map(), nodes: new Map(), gone: this.gone, n: this.n };
    try {
      this.apply(new Map(records.map((record) => [record.event_id, record])));
      return this.view_;
    } finally {
      this.rollBack(this.journal);
      this.journal = undefined;
      this.view_ = current;
    }
  }

  /** Heap and shared bytes, roughly: node fields, targets, the copies views hold, the indexes, spare view arrays. */
  get bytes(): number {
    const perNode = 8 + 4 + 8 + 4 + 4 + 1 + 8 + 8 + 16 + 16;
    const spare = this.spares.reduce((sum, a) => sum + a.state.byteLength + a.offsets.byteLength + a.ends.byteLength, 0);
    return this.n * perNode + this.targets.byteLength + this.reverse.bytes + spare;
  }

  private *findGenesisNodes(): Steps<void> {
    const { ids } = this.genesis;
    let node = 0;
    for (let index = 0; index < ids.length; index++) {
      if ((index & STEP_MASK) === STEP_MASK) yield;
      const record = this.records.size > 0 ? this.records.get(ids[index]!) : undefined;
      if (record && !stands(record)) continue;
      if (!record) this.genesisAt[node] = index;
      node++;
    }
  }

  /** Registers every cause that leads nowhere now (a pass over the causes that could: changed or external). */
  private *findWaitingCauses(): Steps<void> {
    for (let node = 0; node < this.n; node++) {
      if ((node & STEP_MASK) === STEP_MASK) yield;
      const index = this.genesisAt[node]!;
      if (index < 0) {
        const record = this.records.get(this.eventIds[node]!);
        for (const cause of record?.causes ?? []) this.resolveFor(node, cause);
        continue;
      }
      const { causeOffsets, causeTargets, ids } = this.genesis;
      for (let k = causeOffsets[index]!; k < causeOffsets[index + 1]!; k++) {
        const cause = ids[causeTargets[k]!]!;
        if (this.records.size > 0 && this.records.has(cause)) this.resolveFor(node, cause);
      }
      for (const cause of this.externalCauses.get(index) ?? []) this.resolveFor(node, cause);
    }
  }

  /** Where a cause id leads, as the full build resolves it (through `superseded_by` to what stands). */
  private resolve(start: string): Resolution {
    let id = start;
    for (let step = 0; step < MAX_SUCCESSION; step++) {
      const record = this.records.get(id);
      if (!record) break;
      if (stands(record)) return { node: this.standingNode(id), stoppedAt: id };
      if (record.superseded_by === undefined) return { node: -1, stoppedAt: id };
      id = record.superseded_by;
    }
    return { node: this.standingNode(id), stoppedAt: id };
  }

  private standingNode(id: string): number {
    const node = this.positions.get(id);
    return node >= 0 && this.state[node] !== EventState.gone ? node : -1;
  }

  /** Resolves a cause of `node`, and registers the node to be looked at again if it leads nowhere. */
  private resolveFor(node: number, cause: string): number {
    const { node: target, stoppedAt } = this.resolve(cause);
    if (target < 0) {
      let nodes = this.waiting.get(stoppedAt);
      if (!nodes) this.waiting.set(stoppedAt, (nodes = new Set()));
      nodes.add(node);
    }
    return target;
  }

  private takeWaiting(id: string, into: Set<number>): void {
    const nodes = this.waiting.get(id);
    if (!nodes) return;
    for (const node of nodes) into.add(node);
    // An overlay is taken back: the nodes must still be waiting afterwards (looking at them again is harmless).
    if (!this.journal) this.waiting.delete(id);
  }

  /** The node's causes, resolved as the full build resolves them, written after every row so far. */
  private writeRow(node: number): void {
    const start = this.usedTargets;
    const push = (target: number, unique: boolean): void => {
      if (target < 0 || target === node) return;
      if (unique) for (let k = start; k < this.usedTargets; k++) if (this.targets[k] === target) return;
      this.targets = grown(this.targets, this.usedTargets + 1, sharedInt32);
      this.targets[this.usedTargets++] = target;
    };
    const index = node < this.genesisAt.length ? this.genesisAt[node]! : -1;
    if (index < 0) {
      for (const cause of this.records.get(this.eventIds[node]!)!.causes) push(this.resolveFor(node, cause), true);
    } else {
      const { causeOffsets, causeTargets, ids } = this.genesis;
      for (let k = causeOffsets[index]!; k < causeOffsets[index + 1]!; k++) {
        const cause = ids[causeTargets[k]!]!;
        const record = this.records.get(cause);
        // As the full build: a cause that no longer stands is resolved and may repeat another; the others are taken as they are.
        push(this.resolveFor(node, cause), record !== undefined && !stands(record));
      }
      for (const cause of this.externalCauses.get(index) ?? []) push(this.resolveFor(node, cause), true);
    }
    this.setNode(node, this.state[node]!, start, this.usedTargets);
    for (let k = start; k < this.usedTargets; k++) this.reverse.add(this.targets[k]!, node);
  }

  private append(record: EventRecord): number {
    const node = this.n;
    const needed = node + 1;
    this.seconds = grown(this.seconds, needed, sharedFloat64);
    this.nanos = grown(this.nanos, needed, sharedInt32);
    this.manipulatedAtMs = grown(this.manipulatedAtMs, needed, sharedFloat64);
    this.traveller = grown(this.traveller, needed, sharedInt32);
    this.place = grown(this.place, needed, sharedInt32);
    if (needed > this.state.length) {
      const capacity = this.seconds.length;
      const state = new Uint8Array(capacity);
      state.set(this.state);
      this.state = state;
      this.starts = grown(this.starts, capacity, (length) => new Int32Array(length));
      this.ends = grown(this.ends, capacity, (length) => new Int32Array(length));
    }
    const fields = recordNodeFields(record, this.numbering);
    const { seconds, nanos, place, traveller, manipulatedAtMs } = this;
    writeNodeFields({ seconds, nanos, place, traveller, manipulatedAtMs }, node, fields);
    this.eventIds[node] = record.event_id;
    this.n = needed;
    // Appended gone: a node that the journal takes back stays a gone node, never a half-made one.
    this.state[node] = EventState.gone;
    this.starts[node] = this.ends[node] = 0;
    this.gone++;
    this.setNode(node, fields.state, this.usedTargets, this.usedTargets);
    return node;
  }

  private setGone(node: number): void {
    this.setNode(node, EventState.gone, 0, 0);
  }

  private setNode(node: number, state: number, start: number, end: number): void {
    if (this.journal && !this.journal.nodes.has(node)) {
      this.journal.nodes.set(node, [this.state[node]!, this.starts[node]!, this.ends[node]!]);
    }
    if (this.state[node] === EventState.gone && state !== EventState.gone) this.gone--;
    if (this.state[node] !== EventState.gone && state === EventState.gone) this.gone++;
    this.state[node] = state;
    this.starts[node] = start;
    this.ends[node] = end;
  }

  private setRecord(id: string, record: EventRecord): void {
    if (this.journal && !this.journal.records.has(id)) this.journal.records.set(id, this.records.get(id));
    this.records.set(id, record);
  }

  private setPosition(id: string, node: number): void {
    if (this.journal && !this.journal.positions.has(id)) this.journal.positions.set(id, this.positions.get(id));
    this.positions.set(id, node);
  }

  private rollBack(journal: Journal): void {
    for (const [id, record] of journal.records) {
      if (record) this.records.set(id, record);
      else this.records.delete(id);
    }
    for (const [id, node] of journal.positions) if (node >= 0) this.positions.set(id, node);
    for (const [node, [state, start, end]] of journal.nodes) {
      this.state[node] = state;
      this.starts[node] = start;
      this.ends[node] = end;
    }
    this.gone = journal.gone + (this.n - journal.n);
  }

  private freshView(): CausalGraph {
    const n = this.n;
    const arrays = this.takeSpare(n) ?? newViewArrays(withRoom(n));
    const state = arrays.state.subarray(0, n);
    state.set(this.state.subarray(0, n));
    const causeOffsets = arrays.offsets.subarray(0, n + 1);
    causeOffsets.set(this.starts.subarray(0, n));
    causeOffsets[n] = this.usedTargets;
    const causeEnds = arrays.ends.subarray(0, n);
    causeEnds.set(this.ends.subarray(0, n));
    const view: CausalGraph = {
      eventIds: this.eventIds,
      seconds: this.seconds.subarray(0, n),
      nanos: this.nanos.subarray(0, n),
      state,
      causeOffsets,
      causeEnds,
      causeTargets: this.targets.subarray(0, this.usedTargets),
      manipulatedAtMs: this.manipulatedAtMs.subarray(0, n),
      traveller: this.traveller.subarray(0, n),
      place: this.place.subarray(0, n),
    };
    this.viewArrays.set(view, arrays);
    return view;
  }

  /** A view superseded by a delta: its arrays are reused once no reader holds it. */
  private retire(view: CausalGraph): void {
    const arrays = this.viewArrays.get(view);
    if (!arrays) return;
    arrays.current = false;
    if (arrays.readers === 0) this.spare(arrays);
  }

  private spare(arrays: ViewArrays): void {
    if (this.spares.length < MAX_SPARE_VIEWS) this.spares.push(arrays);
  }

  private takeSpare(n: number): ViewArrays | undefined {
    const at = this.spares.findIndex((arrays) => arrays.state.length >= n);
    if (at === -1) return undefined;
    const [arrays] = this.spares.splice(at, 1);
    arrays!.readers = 0;
    return arrays;
  }
}

/** Room for `capacity` nodes; a view uses the first n. */
function newViewArrays(capacity: number): ViewArrays {
  return { state: sharedUint8(capacity), offsets: sharedInt32(capacity + 1), ends: sharedInt32(capacity), readers: 0, current: false };
}
