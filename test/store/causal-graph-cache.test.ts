// The store's causal graph cache: reads of an unchanged timeline share one graph; any write on the chain,
// or a bulk load, is seen by the next read; the graph is the one a store without a cache builds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CausalGraph } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { AnalysisPool } from '../../src/analysis/pool.ts';
import { LevelTimelineStore, type GenesisEvent } from '../../src/store/index.ts';
import { CausalGraphCache } from '../../src/store/causal-graph-cache.ts';
import { decodeSnapshot, encodeSnapshot } from '../../src/store/genesis-snapshot.ts';
import { chunkKey, Tag, tagKey } from '../../src/store/keys.ts';
import { parseInstant } from '../../src/time/index.ts';
import { canonicalGraph, causesOfEvent, standingIds, standingNodes } from './graph-canonical.ts';
import { openLevel, type TempDb } from './temp-store.ts';

interface Context {
  dir: string;
  db: TempDb;
  store: LevelTimelineStore;
}

const at = (text: string) => parseInstant(text);
const genesis = (count: number, time = '1900-01-01T00:00:00Z'): GenesisEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    event_id: `g${String(i).padStart(3, '0')}`,
    description: `g${i}`,
    time: at(time),
    location: `Town ${i % 7}`,
    causes: i > 0 ? [`g${String(i - 1).padStart(3, '0')}`] : [],
  }));

const described = canonicalGraph;
const causesOf = causesOfEvent;
const nodeOf = (graph: CausalGraph, id: string) => standingNodes(graph).find((node) => graph.eventIds[node] === id)!;

const cache = suite<Context>('causal graph cache');

cache.before.each(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'tms-graph-cache-'));
  context.db = await openLevel(context.dir);
  context.store = new LevelTimelineStore(context.db);
  await context.store.open();
});

cache.after.each(async (context) => {
  await context.store.close();
  await context.db.close();
  await rm(context.dir, { recursive: true, force: true });
});

/** The graph a store that never read this timeline before builds (no cache), from the same folder. */
async function freshRead(context: Context, timelineId: string): Promise<CausalGraph> {
  await context.store.close();
  await context.db.close();
  context.db = await openLevel(context.dir);
  context.store = new LevelTimelineStore(context.db);
  await context.store.open();
  return (await context.store.readCausalGraph(timelineId)).graph;
}

/** The entry the cache hands an update of the timeline (undefined when it keeps none), leaving a new one of `bytes`. */
async function keptEntry(graphs: CausalGraphCache<{ bytes: number }>, timelineId: string, bytes = 100): Promise<{ bytes: number } | undefined> {
  let seen: { bytes: number } | undefined;
  await graphs.update(timelineId, async (kept) => {
    seen = kept;
    return kept ?? { bytes };
  });
  return seen;
}

cache('the cache drops a timeline at once when asked to forget it (a deleted timeline)', async () => {
  const graphs = new CausalGraphCache<{ bytes: number }>();
  await keptEntry(graphs, 'tl_a');
  await keptEntry(graphs, 'tl_b');
  assert.ok(await keptEntry(graphs, 'tl_a'));
  graphs.forget('tl_a');
  assert.is(graphs.counts().entries, 1);
  assert.is(await keptEntry(graphs, 'tl_a'), undefined);
});

cache('the cache keeps entries within its byte budget once they are made, most recently used first; updates of one timeline run one at a time', async () => {
  const graphs = new CausalGraphCache<{ bytes: number }>(250);
  for (const id of ['tl_a', 'tl_b']) await keptEntry(graphs, id);
  assert.ok(await keptEntry(graphs, 'tl_a'), 'tl_a is used: tl_b is the oldest');
  await keptEntry(graphs, 'tl_c');
  assert.is(await keptEntry(graphs, 'tl_b'), undefined, 'evicted once tl_c was sized');
  assert.equal(graphs.counts(), { name: 'causal_graph', hits: 1, misses: 4, entries: 2, bytes: 200, maxBytes: 250 });

  const order: string[] = [];
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const first = graphs.update('tl_b', async (kept) => {
    await released;
    order.push('first');
    return { bytes: kept!.bytes + 1 };
  });
  const second = graphs.update('tl_b', async (kept) => {
    order.push(`second saw ${kept!.bytes}`);
    return kept!;
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(order, [], 'the second waits for the first');
  release();
  await Promise.all([first, second]);
  assert.equal(order, ['first', 'second saw 101']);
});

cache('reads of an unchanged timeline share one graph; a read after each write reflects it', async (context) => {
  const { store } = context;
  await store.bulkLoad('primary', genesis(50));
  const first = await store.readCausalGraph('primary');
  const second = await store.readCausalGraph('primary');
  assert.is.not(second.graph, first.graph, 'each read gets its own graph object');
  assert.is(second.graph.seconds.buffer, first.graph.seconds.buffer, 'but the same arrays: no rebuild');
  assert.is(second.stamp, first.stamp);
  assert.ok(Object.isFrozen(first.graph.eventIds), 'the shared id list cannot be changed by a reader');

  const firstAsRead = described(first.graph);
  const { created } = await store.manipulate('primary', 'g010', { description: 'later', changes: [{ action: 'reschedule', time: at('1950-01-01T00:00:00Z') }] }, 'u');
  const afterManipulation = await store.readCausalGraph('primary');
  assert.is.not(afterManipulation.stamp, first.stamp);
  assert.is.not(afterManipulation.graph.state.buffer, first.graph.state.buffer, 'a view of its own');
  assert.is(afterManipulation.graph.seconds[nodeOf(afterManipulation.graph, 'g000')], first.graph.seconds[nodeOf(first.graph, 'g000')]);
  assert.ok(standingIds(afterManipulation.graph).includes(created.event_id));
  assert.not.ok(standingIds(afterManipulation.graph).includes('g010'));
  assert.equal(causesOf(afterManipulation.graph, 'g011'), [created.event_id], 'the effect now depends on the successor');
  assert.is(afterManipulation.graph.seconds[nodeOf(afterManipulation.graph, created.event_id)], Date.UTC(1950, 0, 1) / 1000);
  assert.equal(described(first.graph), firstAsRead, 'the view read before the write is unchanged');

  const inserted = await store.insertEvent('primary', { description: 'new', time: at('1960-01-01T00:00:00Z'), location: 'Town 1', causes: [created.event_id] }, 'u');
  const afterInsert = (await store.readCausalGraph('primary')).graph;
  assert.equal(causesOf(afterInsert, inserted.event_id), [created.event_id]);
  assert.is(standingIds(afterInsert).length, 51);

  await store.revert('primary', created.event_id, 'u');
  const afterRevert = (await store.readCausalGraph('primary')).graph;
  assert.ok(standingIds(afterRevert).includes('g010'));
  assert.not.ok(standingIds(afterRevert).includes(created.event_id));
  assert.equal(causesOf(afterRevert, 'g011'), ['g010']);
  assert.equal(causesOf(afterRevert, inserted.event_id), [], 'a reverted cause is dropped: no event stands in its place');
  assert.equal(analyseParadoxes(afterRevert).eventsAnalysed, 51, 'gone nodes are not counted');

  assert.equal(described(await freshRead(context, 'primary')), described(afterRevert), 'identical to the graph a store without a cache builds');
});

cache("a branch's cached graph follows writes to the base it sees live, not to a base it froze", async (context) => {
  const { store } = context;
  await store.bulkLoad('primary', genesis(20));
  const parallel = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
  const alternate = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
  const parallelBefore = (await store.readCausalGraph(parallel.timeline_id)).graph;
  const alternateBefore = (await store.readCausalGraph(alternate.timeline_id)).graph;
  const { created } = await store.manipulate('primary', 'g005', { description: 'x', changes: [{ action: 'prevent', time: at('1900-01-01T00:00:00Z') }] }, 'u');
  const parallelAfter = (await store.readCausalGraph(parallel.timeline_id)).graph;
  assert.ok(standingIds(parallelAfter).includes(created.event_id), 'the parallel sees its base change');
  assert.is(parallelAfter.state[nodeOf(parallelAfter, created.event_id)], 1, 'cancelled');
  assert.not.ok(standingIds(parallelBefore).includes(created.event_id));
  assert.equal(described((await store.readCausalGraph(alternate.timeline_id)).graph), described(alternateBefore), 'the alternate does not');
  assert.equal(described(await freshRead(context, parallel.timeline_id)), described(parallelAfter));
});

cache('a bulk load that keeps the event count still replaces the cached graph', async (context) => {
  const { store } = context;
  await store.bulkLoad('primary', genesis(10));
  const before = (await store.readCausalGraph('primary')).graph;
  assert.is(before.seconds[before.eventIds.indexOf('g003')], Date.UTC(1900, 0, 1) / 1000);
  // The same ids again, at another time: the snapshot changes, the count and revision do not.
  await store.bulkLoad('primary', genesis(10, '1901-01-01T00:00:00Z'));
  const after = (await store.readCausalGraph('primary')).graph;
  assert.is(after.eventIds.length, 10);
  assert.is(after.seconds[after.eventIds.indexOf('g003')], Date.UTC(1901, 0, 1) / 1000);
});

cache('in year 900 000 000 a bulk-loaded graph and one kept write by write order events one second apart', async (context) => {
  const { store } = context;
  // Seconds 1 and 2 of the year share one double there.
  const far = (second: number) => at(`+900000000-01-01T00:00:0${second}Z`);
  await store.bulkLoad('primary', [
    { event_id: 'cause', description: '', time: far(2), location: 'Rome', causes: [] },
    { event_id: 'effect', description: '', time: far(1), location: 'Rome', causes: ['cause'] },
  ]);
  const violations = (graph: CausalGraph) =>
    analyseParadoxes(graph).paradoxes.map((paradox) => [paradox.kind, paradox.eventIndexes.map((node) => graph.eventIds[node])]);
  assert.equal(violations(await freshRead(context, 'primary')), [['causality_violation', ['effect', 'cause']]], 'from the genesis snapshot');

  await context.store.readCausalGraph('primary');
  const { created } = await context.store.manipulate('primary', 'cause', { description: 'x', changes: [{ action: 'reschedule', time: far(0) }] }, 'u');
  assert.equal(violations((await context.store.readCausalGraph('primary')).graph), [], 'the kept graph: the cause now a second before its effect');
  await context.store.manipulate('primary', created.event_id, { description: 'y', changes: [{ action: 'reschedule', time: far(2) }] }, 'u');
  const kept = (await context.store.readCausalGraph('primary')).graph;
  assert.equal(violations(kept), [['causality_violation', ['effect', kept.eventIds.at(-1)]]]);
  assert.equal(described(await freshRead(context, 'primary')), described(kept));
});

cache('a snapshot written while times were plain seconds has its rounded times read exactly from the genesis records', async (context) => {
  const far = (second: number) => at(`+900000000-01-01T00:00:0${second}Z`);
  await context.store.bulkLoad('primary', [
    { event_id: 'cause', description: '', time: far(2), location: 'Rome', causes: [] },
    { event_id: 'effect', description: '', time: far(1), location: 'Rome', causes: ['cause'] },
  ]);
  // Rewritten as such a snapshot was: each time the double nearest its second, no `points` in the header.
  const { level, snapshot_chunks } = JSON.parse(Buffer.from((await context.store.entries.get(tagKey(Tag.timeline, 'primary')))!).toString()) as {
    level: number;
    snapshot_chunks: number;
  };
  assert.is(snapshot_chunks, 1);
  const snapshot = decodeSnapshot(Buffer.from((await context.store.entries.get(chunkKey(level, 0)))!));
  snapshot.ids.forEach((id, i) => {
    snapshot.seconds[i] = Number(far(id === 'cause' ? 2 : 1).seconds);
    snapshot.nanos[i] = 0;
  });
  assert.is(snapshot.seconds[0], snapshot.seconds[1], 'one double for both seconds');
  const bytes = encodeSnapshot(snapshot);
  bytes.write('"points":null', bytes.indexOf('"points":true'));
  await context.store.entries.write([{ type: 'put', key: chunkKey(level, 0), value: bytes }], true);

  const graph = await freshRead(context, 'primary');
  assert.equal(
    analyseParadoxes(graph).paradoxes.map((paradox) => [paradox.kind, paradox.eventIndexes.map((node) => graph.eventIds[node])]),
    [['causality_violation', ['effect', 'cause']]],
  );
});

cache('concurrent reads share one build; an overlay read is a view of its own and leaves the cached graph alone', async (context) => {
  const { store } = context;
  await store.bulkLoad('primary', genesis(30));
  const [a, b, c] = await Promise.all([store.readCausalGraph('primary'), store.readCausalGraph('primary'), store.readCausalGraph('primary')]);
  assert.is(b.graph.causeTargets.buffer, a.graph.causeTargets.buffer);
  assert.is(c.graph.causeTargets.buffer, a.graph.causeTargets.buffer);
  const snapshot = described(a.graph);
  const refused = await store
    .manipulate('primary', 'g004', { description: 'x', changes: [] }, 'u', async (proposal) => {
      const overlaid = (await store.readCausalGraph('primary', { overlay: [proposal.original, proposal.created] })).graph;
      assert.ok(standingIds(overlaid).includes(proposal.created.event_id));
      assert.not.ok(standingIds(overlaid).includes('g004'));
      assert.is.not(overlaid.state.buffer, a.graph.state.buffer);
      const plainRead = (await store.readCausalGraph('primary')).graph;
      assert.is(plainRead.state.buffer, a.graph.state.buffer, 'the timeline as it stands is still the cached graph');
      assert.equal(described(plainRead), snapshot);
      throw new Error('refused by the check');
    })
    .catch((error: Error) => error.message);
  assert.is(refused, 'refused by the check');
  const after = await store.readCausalGraph('primary');
  assert.is(after.graph.seconds.buffer, a.graph.seconds.buffer, 'nothing was written: still the cached graph');
  assert.equal(described(after.graph), snapshot);
});

cache('analyses on workers read the cached graph in place, two at once, and leave it whole', async (context) => {
  const { store } = context;
  await store.bulkLoad('primary', genesis(200));
  await store.insertEvent('primary', { description: 'effect before its cause', time: at('1800-01-01T00:00:00Z'), location: 'Town 2', causes: ['g100'] }, 'u');
  const pool = new AnalysisPool({ threads: 1 });
  try {
    const [one, two] = await Promise.all([store.readCausalGraph('primary'), store.readCausalGraph('primary')]);
    const expected = analyseParadoxes(one.graph);
    const reports = await Promise.all([pool.analyseParadoxes(one.graph, [], { forceWorker: true }), pool.analyseParadoxes(two.graph, [], { forceWorker: true })]);
    assert.equal(reports[0], expected);
    assert.equal(reports[1], expected);
    assert.ok(expected.paradoxCount > 0, 'the sample has a paradox to find');
    const again = (await store.readCausalGraph('primary')).graph;
    assert.is(again.seconds.length, 201, 'the cached arrays were shared, not moved to the worker');
    assert.equal(analyseParadoxes(again), expected);
  } finally {
    await pool.close();
  }
});

cache.run();
