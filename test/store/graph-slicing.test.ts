// The causal graph's genesis snapshot decoded from chunks cut anywhere, and the graph built in slices that
// give the event loop turns: both give exactly what the one-go versions give.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CausalGraph } from '../../src/analysis/causal-graph.ts';
import { buildCausalGraph, buildCausalGraphInSlices, concatSnapshots, withRoom } from '../../src/store/causal-graph-builder.ts';
import { decodeSnapshot, decodeSnapshotInSlices, encodeSnapshot, encodeSnapshotChunks, GenesisAccumulator, type GenesisSnapshot } from '../../src/store/genesis-snapshot.ts';
import type { EventRecord } from '../../src/store/types.ts';
import { seededRandom } from '../analysis/random-graph.ts';


/** `count` genesis events with ids of 1- to 4-byte UTF-8 characters, 0–3 causes each, some outside the snapshot. */
function snapshotOf(count: number, seed: number, prefix = ''): GenesisSnapshot {
  const next = seededRandom(seed);
  const accumulator = new GenesisAccumulator();
  const id = (i: number) => `${prefix}${['e', 'é', 'ев', '事件', '🕰'][i % 5]}-${i}`;
  for (let i = 0; i < count; i++) {
    const causes: string[] = [];
    for (let k = Math.floor(next() * 4); k > 0; k--) causes.push(next() < 0.05 ? `outside-${k}` : id(Math.floor(next() * count)));
    accumulator.add(id(i), Math.floor(next() * 2e9) - 1e9, Math.floor(next() * 1e9), `place ${Math.floor(next() * 40)}`, causes);
  }
  return accumulator.build();
}

function cutAnywhere(bytes: Buffer, sizes: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0, k = 0; offset < bytes.length; k++) {
    const size = sizes[k % sizes.length]!;
    chunks.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

const plain = (graph: CausalGraph) => Object.fromEntries(Object.entries(graph).map(([field, values]) => [field, Array.from(values as ArrayLike<unknown>)]));

const decoding = suite('genesis snapshot decoded from chunks');

decoding('chunks cut anywhere (inside numbers and multi-byte ids) decode to the same snapshot', async () => {
  const original = snapshotOf(3000, 7);
  assert.ok(original.external.length > 0, 'the sample has causes outside the snapshot');
  const bytes = encodeSnapshot(original);
  const whole = decodeSnapshot(bytes);
  assert.equal(whole, original);
  for (const sizes of [[bytes.length], [1], [7, 3, 1000], [4096, 5], [65_537]]) {
    assert.equal(await decodeSnapshotInSlices(cutAnywhere(bytes, sizes)), original, `chunk sizes ${sizes.join(',')}`);
  }
  const empty = new GenesisAccumulator().build();
  assert.equal(await decodeSnapshotInSlices(cutAnywhere(encodeSnapshot(empty), [3])), empty);
});

decoding('encoded a chunk at a time, it is the same bytes cut at the chunk size', async () => {
  const original = snapshotOf(3000, 11);
  const bytes = encodeSnapshot(original);
  for (const size of [1, 7, 4096, 65_537, bytes.length - 1, bytes.length, bytes.length + 1]) {
    const chunks = [...encodeSnapshotChunks(original, size)];
    assert.equal(chunks.map((chunk) => chunk.length), cutAnywhere(bytes, [size]).map((chunk) => chunk.length), `chunk size ${size}`);
    assert.ok(Buffer.concat(chunks).equals(bytes), `chunk size ${size}: the same bytes`);
  }
  assert.equal(await decodeSnapshotInSlices([...encodeSnapshotChunks(original, 4096)]), original);
  const empty = new GenesisAccumulator().build();
  assert.equal(decodeSnapshot(Buffer.concat([...encodeSnapshotChunks(empty, 5)])), empty);
});

decoding('a truncated snapshot is refused, not decoded short', async () => {
  const bytes = encodeSnapshot(snapshotOf(100, 3));
  try {
    await decodeSnapshotInSlices([bytes.subarray(0, bytes.length - 10)]);
    assert.unreachable('decoded a truncated snapshot');
  } catch (error) {
    assert.match((error as Error).message, /genesis snapshot/);
  }
});

decoding.run();

const building = suite('causal graph built in slices');

/** Changes on top of a snapshot: manipulations (some chained), cancellations, reverts and new events. */
function changesOf(genesis: GenesisSnapshot, seed: number): Map<string, EventRecord> {
  const next = seededRandom(seed);
  const changed = new Map<string, EventRecord>();
  const record = (id: string, fields: Partial<EventRecord> = {}): EventRecord => ({
    event_id: id,
    timeline_id: 'primary',
    description: id,
    time: '2000-01-01T00:00:00.5Z',
    location: `Place ${Math.floor(next() * 50)}`,
    causes: [genesis.ids[Math.floor(next() * genesis.ids.length)]!, 'nowhere'],
    status: 'original',
    ...fields,
  });
  for (let k = 0; k < 200; k++) {
    const original = genesis.ids[Math.floor(next() * genesis.ids.length)]!;
    if (changed.has(original)) continue;
    const roll = next();
    if (roll < 0.5) {
      const successor = `m-${k}`;
      changed.set(original, record(original, { superseded_by: successor }));
      const status = next() < 0.3 ? 'cancelled' : 'manipulated';
      changed.set(successor, record(successor, { supersedes: original, status, created_at: '2026-01-02T03:04:05Z' }));
      if (next() < 0.3) {
        const again = `m-${k}-again`;
        changed.set(successor, { ...changed.get(successor)!, superseded_by: again });
        changed.set(again, record(again, { supersedes: successor, status: 'manipulated', created_at: '2026-01-02T03:04:06Z' }));
      }
    } else if (roll < 0.7) {
      changed.set(original, record(original, { status: 'reverted' }));
    } else if (roll < 0.85) {
      changed.set(original, record(original, { kind: 'arrival', traveller: `t${k % 3}` }));
    } else {
      changed.set(`new-${k}`, record(`new-${k}`, { causes: [original, `m-${k - 1}`] }));
    }
  }
  return changed;
}

building('gives the same graph as the one-go build, and lets the event loop run while it builds', async () => {
  for (const seed of [1, 2, 3]) {
    const genesis = snapshotOf(20_000, seed);
    const changed = changesOf(genesis, seed * 31);
    const expected = buildCausalGraph(genesis, changed);
    let turns = 0;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    let done = false;
    setImmediate(tick);
    const sliced = await buildCausalGraphInSlices(genesis, changed, 0);
    done = true;
    assert.equal(plain(sliced), plain(expected), `seed ${seed}`);
    assert.ok(turns > 10, `the event loop had ${turns} turns during the build`);
  }
});

building('untouched genesis: every event and every cause but self-causes, ids shared with the snapshot', async () => {
  const genesis = snapshotOf(5000, 9);
  const graph = await buildCausalGraphInSlices(genesis, new Map());
  assert.is(graph.eventIds, genesis.ids);
  assert.equal(Array.from(graph.seconds), Array.from(genesis.seconds));
  for (let i = 0; i < genesis.ids.length; i++) {
    const own = Array.from(genesis.causeTargets.subarray(genesis.causeOffsets[i]!, genesis.causeOffsets[i + 1]!)).filter((target) => target !== i);
    assert.equal(Array.from(graph.causeTargets.subarray(graph.causeOffsets[i]!, graph.causeOffsets[i + 1]!)), own, genesis.ids[i]);
  }
});

building("the graph's arrays live in shared memory, sized exactly or with the room appends use", async () => {
  const genesis = snapshotOf(3000, 4);
  const graph = await buildCausalGraphInSlices(genesis, changesOf(genesis, 5));
  for (const field of ['state', 'causeOffsets'] as const) {
    assert.instance(graph[field].buffer, SharedArrayBuffer, field);
    assert.is(graph[field].byteLength, graph[field].buffer.byteLength, `${field} owns its whole buffer`);
  }
  // The kept graph appends to these (live-causal-graph.ts): each starts its own buffer, which has room for an eighth more.
  for (const field of ['seconds', 'nanos', 'causeTargets', 'manipulatedAtMs', 'traveller', 'place'] as const) {
    const array = graph[field];
    assert.instance(array.buffer, SharedArrayBuffer, field);
    assert.is(array.byteOffset, 0, `${field} starts its buffer`);
    assert.is(array.buffer.byteLength, withRoom(array.length) * array.BYTES_PER_ELEMENT, `${field} has the room, no more`);
  }
  assert.is(graph.causeOffsets[graph.eventIds.length], graph.causeTargets.length);
});

building('several genesis levels merge into one snapshot', async () => {
  const a = snapshotOf(300, 11, 'a');
  const b = snapshotOf(200, 12, 'b');
  const merged = concatSnapshots([a, b]);
  assert.equal(merged.ids, [...a.ids, ...b.ids]);
  assert.is(merged.causeTargets.length, a.causeTargets.length + b.causeTargets.length);
  assert.equal(plain(await buildCausalGraphInSlices(merged, new Map(), 0)), plain(buildCausalGraph(merged, new Map())));
});

building.run();
