// A graph kept write by write has gone nodes (positions of events that no longer stand) and rows moved to
// the end of causeTargets. Every analysis must answer for it exactly as for the compact graph of the same
// events: the same paradoxes (by event id), counts, figures and verdict.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnchorPin, CausalGraph } from '../../src/analysis/causal-graph.ts';
import { EventState } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { AnalysisPool } from '../../src/analysis/pool.ts';
import { mulberry32 } from '../../src/synthetic/prng.ts';
import { randomGraph } from './random-graph.ts';
import { reportByIds } from './report-by-ids.ts';

/** The same events with a gone node before each (about) third one, and every row placed in reverse order after left-over targets. */
function withGoneNodes(graph: CausalGraph, seed: number): CausalGraph {
  const random = mulberry32(seed);
  const count = graph.seconds.length;
  const position = new Int32Array(count);
  const ids: string[] = [];
  const from: number[] = [];
  for (let event = 0; event < count; event++) {
    if (random() < 0.3) {
      ids.push(`gone-${event}`);
      from.push(-1);
    }
    position[event] = ids.length;
    ids.push(graph.eventIds[event]!);
    from.push(event);
  }
  const n = ids.length;
  const pick = <T extends Float64Array | Int32Array | Uint8Array>(array: T, make: (length: number) => T, gone: number): T => {
    const out = make(n);
    from.forEach((event, at) => (out[at] = event < 0 ? gone : array[event]!));
    return out;
  };
  const targets: number[] = [];
  for (let k = 0; k < 17; k++) targets.push(Math.floor(random() * n));
  const causeOffsets = new Int32Array(n + 1);
  const causeEnds = new Int32Array(n);
  for (let at = n - 1; at >= 0; at--) {
    const event = from[at]!;
    causeOffsets[at] = targets.length;
    if (event >= 0) {
      for (let link = graph.causeOffsets[event]!; link < graph.causeOffsets[event + 1]!; link++) targets.push(position[graph.causeTargets[link]!]!);
    }
    causeEnds[at] = targets.length;
    if (random() < 0.1) targets.push(Math.floor(random() * n));
  }
  causeOffsets[n] = targets.length;
  return {
    eventIds: ids,
    seconds: pick(graph.seconds, (length) => new Float64Array(length), 0),
    nanos: pick(graph.nanos, (length) => new Int32Array(length), 0),
    state: pick(graph.state, (length) => new Uint8Array(length), EventState.gone),
    causeOffsets,
    causeEnds,
    causeTargets: Int32Array.from(targets),
    manipulatedAtMs: pick(graph.manipulatedAtMs, (length) => new Float64Array(length), 0),
    traveller: pick(graph.traveller, (length) => new Int32Array(length), -1),
    place: pick(graph.place, (length) => new Int32Array(length), 0),
  };
}

const anchors: AnchorPin[] = [
  { anchorId: 'a1', seconds: 300, nanos: 0, setAtMs: 1_000 },
  { anchorId: 'a2', seconds: 1_200, nanos: 500, setAtMs: 3_000 },
];

for (const seed of [1, 2, 3, 4, 5]) {
  test(`gone nodes and moved rows change no answer (seed ${seed})`, () => {
    const compact = randomGraph(2_000, 2, seed);
    const sparse = withGoneNodes(compact, seed);
    assert.ok(sparse.seconds.length > compact.seconds.length, 'the sample has gone nodes');
    const options = { maxListed: 100_000 };
    const expected = analyseParadoxes(compact, anchors, options);
    assert.ok(expected.paradoxCount > 0, 'the sample has paradoxes');
    assert.equal(reportByIds(analyseParadoxes(sparse, anchors, options), sparse), reportByIds(expected, compact));
    const window = { start: { seconds: 400, nanos: 0 }, end: { seconds: 900, nanos: 0 } };
    assert.equal(
      reportByIds(analyseParadoxes(sparse, anchors, { ...options, window }), sparse),
      reportByIds(analyseParadoxes(compact, anchors, { ...options, window }), compact),
      'within a window too',
    );
  });
}

test('a graph with gone nodes crosses to a worker and back whole', async () => {
  const pool = new AnalysisPool({ threads: 1 });
  try {
    const compact = randomGraph(500, 2, 9);
    const sparse = withGoneNodes(compact, 9);
    const report = await pool.analyseParadoxes(sparse, anchors, { forceWorker: true });
    assert.equal(reportByIds(report, sparse), reportByIds(analyseParadoxes(compact, anchors), compact));
    assert.is(sparse.causeEnds!.length, sparse.seconds.length, 'its row ends came back');
  } finally {
    await pool.close();
  }
});

test('the shape check refuses a row that names a gone node, and a gone node with causes', () => {
  const sparse = withGoneNodes(randomGraph(50, 2, 3), 3);
  const gone = sparse.state.indexOf(EventState.gone);
  const effect = Array.from(sparse.causeEnds!).findIndex((end, i) => end > sparse.causeOffsets[i]!);
  const namesGone = { ...sparse, causeTargets: sparse.causeTargets.slice() };
  namesGone.causeTargets[sparse.causeOffsets[effect]!] = gone;
  assert.throws(() => analyseParadoxes(namesGone), /names gone event/);
  const goneWithCauses = { ...sparse, causeEnds: sparse.causeEnds!.slice() };
  goneWithCauses.causeOffsets = sparse.causeOffsets.slice();
  goneWithCauses.causeOffsets[gone] = 0;
  goneWithCauses.causeEnds[gone] = 1;
  assert.throws(() => analyseParadoxes(goneWithCauses), /gone event \d+ has causes/);
});

test.run();
