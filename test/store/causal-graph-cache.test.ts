// The store's causal graph cache: reads of an unchanged timeline share one graph; any write on the chain,
// or a bulk load, is seen by the next read; the graph is the one a store without a cache builds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CausalGraph } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { AnalysisPool } from '../../src/analysis/pool.ts';
import { LevelTimelineStore, type GenesisEvent } from '../../src/store/index.ts';
import { CausalGraphCache, graphBytes } from '../../src/store/causal-graph-cache.ts';
import { parseInstant } from '../../src/time/index.ts';

interface Context {
  dir: string;
  db: Level<Uint8Array, Uint8Array>;
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

/** The graph as plain data: ids with their fields and causes (by id), independent of node numbering. */
function described(graph: CausalGraph): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  graph.eventIds.forEach((id, i) => {
    const causes = Array.from(graph.causeTargets.subarray(graph.causeOffsets[i]!, graph.causeOffsets[i + 1]!), (t) => graph.eventIds[t]);
    out[id] = [graph.seconds[i], graph.nanos[i], graph.state[i], graph.manipulatedAtMs[i], graph.traveller[i], graph.place[i], causes];
  });
  return out;
}

const exact = (graph: CausalGraph) => Object.fromEntries(Object.entries(graph).map(([field, values]) => [field, Array.from(values as ArrayLike<unknown>)]));
const causesOf = (graph: CausalGraph, id: string) => described(graph)[id] && (described(graph)[id] as unknown[])[6];

const cache = suite<Context>('causal graph cache');

cache.before.each(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'tms-graph-cache-'));
  context.db = new Level<Uint8Array, Uint8Array>(context.dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await context.db.open();
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
  context.db = new Level<Uint8Array, Uint8Array>(context.dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await context.db.open();
  context.store = new LevelTimelineStore(context.db);
  await context.store.open();
  return (await context.store.readCausalGraph(timelineId)).graph;
}

cache('the cache drops a timeline at once when asked to forget it (a deleted timeline)', () => {
  const graphs = new CausalGraphCache();
  const graph = Promise.resolve({ eventIds: [] } as unknown as CausalGraph);
  graphs.set('tl_a', 'stamp', [], graph);
  graphs.set('tl_b', 'stamp', [], graph);
  assert.is(graphs.get('tl_a', 'stamp', []), graph);
  graphs.forget('tl_a');
  assert.is(graphs.get('tl_a', 'stamp', []), undefined);
  assert.is(graphs.counts().entries, 1);
});

cache('the cache keeps graphs within its byte budget once they are built, most recently used first', async () => {
  const sized = (events: number) => ({ eventIds: Array.from({ length: events }, (_, i) => `e${i}`), seconds: new Float64Array(events) }) as unknown as CausalGraph;
  const oneGraph = graphBytes(sized(1000));
  const graphs = new CausalGraphCache(oneGraph * 2 + oneGraph / 2);
  for (const id of ['tl_a', 'tl_b']) graphs.set(id, 'stamp', [], Promise.resolve(sized(1000)));
  await Promise.resolve();
  assert.ok(graphs.get('tl_a', 'stamp', []), 'tl_a is used: tl_b is the oldest');
  assert.is(graphs.get('tl_a', 'other stamp', []), undefined, 'another state of the timeline is not served');
  graphs.set('tl_c', 'stamp', [], Promise.resolve(sized(1000)));
  await Promise.resolve();
  assert.is(graphs.get('tl_b', 'stamp', []), undefined, 'evicted once tl_c was sized');
  assert.ok(graphs.get('tl_c', 'stamp', []));
  assert.equal(graphs.counts(), { name: 'causal_graph', hits: 3, misses: 1, entries: 2, bytes: oneGraph * 2, maxBytes: oneGraph * 2 + oneGraph / 2 });
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

  const { created } = await store.manipulate('primary', 'g010', { description: 'later', changes: [{ action: 'reschedule', time: at('1950-01-01T00:00:00Z') }] }, 'u');
  const afterManipulation = await store.readCausalGraph('primary');
  assert.is.not(afterManipulation.stamp, first.stamp);
  assert.is.not(afterManipulation.graph.seconds.buffer, first.graph.seconds.buffer, 'rebuilt');
  assert.ok(afterManipulation.graph.eventIds.includes(created.event_id));
  assert.not.ok(afterManipulation.graph.eventIds.includes('g010'));
  assert.equal(causesOf(afterManipulation.graph, 'g011'), [created.event_id], 'the effect now depends on the successor');
  assert.is(afterManipulation.graph.seconds[afterManipulation.graph.eventIds.indexOf(created.event_id)], Date.UTC(1950, 0, 1) / 1000);

  const inserted = await store.insertEvent('primary', { description: 'new', time: at('1960-01-01T00:00:00Z'), location: 'Town 1', causes: [created.event_id] }, 'u');
  const afterInsert = (await store.readCausalGraph('primary')).graph;
  assert.equal(causesOf(afterInsert, inserted.event_id), [created.event_id]);
  assert.is(afterInsert.eventIds.length, 51);

  await store.revert('primary', created.event_id, 'u');
  const afterRevert = (await store.readCausalGraph('primary')).graph;
  assert.ok(afterRevert.eventIds.includes('g010'));
  assert.not.ok(afterRevert.eventIds.includes(created.event_id));
  assert.equal(causesOf(afterRevert, 'g011'), ['g010']);
  assert.equal(causesOf(afterRevert, inserted.event_id), [], 'a reverted cause is dropped: no event stands in its place');

  assert.equal(exact(await freshRead(context, 'primary')), exact(afterRevert), 'identical to the graph a store without a cache builds');
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
  assert.ok(parallelAfter.eventIds.includes(created.event_id), 'the parallel sees its base change');
  assert.is(parallelAfter.state[parallelAfter.eventIds.indexOf(created.event_id)], 1, 'cancelled');
  assert.not.ok(parallelBefore.eventIds.includes(created.event_id));
  assert.equal(described((await store.readCausalGraph(alternate.timeline_id)).graph), described(alternateBefore), 'the alternate does not');
  assert.equal(exact(await freshRead(context, parallel.timeline_id)), exact(parallelAfter));
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

cache('concurrent reads share one build; an overlay read is built apart and leaves the cached graph alone', async (context) => {
  const { store } = context;
  await store.bulkLoad('primary', genesis(30));
  const [a, b, c] = await Promise.all([store.readCausalGraph('primary'), store.readCausalGraph('primary'), store.readCausalGraph('primary')]);
  assert.is(b.graph.causeTargets.buffer, a.graph.causeTargets.buffer);
  assert.is(c.graph.causeTargets.buffer, a.graph.causeTargets.buffer);
  const snapshot = described(a.graph);
  const refused = await store
    .manipulate('primary', 'g004', { description: 'x', changes: [] }, 'u', async (proposal) => {
      const overlaid = (await store.readCausalGraph('primary', { overlay: [proposal.original, proposal.created] })).graph;
      assert.ok(overlaid.eventIds.includes(proposal.created.event_id));
      assert.not.ok(overlaid.eventIds.includes('g004'));
      assert.is.not(overlaid.seconds.buffer, a.graph.seconds.buffer);
      const plainRead = (await store.readCausalGraph('primary')).graph;
      assert.is(plainRead.seconds.buffer, a.graph.seconds.buffer, 'the timeline as it stands is still the cached graph');
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
