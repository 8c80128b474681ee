import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { simulateUnitNoise } from '../../src/anchors/stability.ts';
import type { AnchorPin, CausalGraph } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { AnalysisPool, defaultThreadCount } from '../../src/analysis/pool.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { toApiError } from '../../src/server/errors.ts';
import { bigLinkedGraph, buildGraph } from './graph-builder.ts';
import { randomGraph } from './random-graph.ts';

const pool = new AnalysisPool({ threads: 1 });
const anchors: AnchorPin[] = [
  { anchorId: 'a1', seconds: 5_000, nanos: 0, setAtMs: 1_000 },
  { anchorId: 'a2', seconds: 20_000, nanos: 500, setAtMs: 3_000 },
];

const copyOf = (graph: CausalGraph): CausalGraph => ({
  eventIds: graph.eventIds,
  seconds: graph.seconds.slice(),
  nanos: graph.nanos.slice(),
  state: graph.state.slice(),
  causeOffsets: graph.causeOffsets.slice(),
  causeTargets: graph.causeTargets.slice(),
  manipulatedAtMs: graph.manipulatedAtMs.slice(),
  traveller: graph.traveller.slice(),
  place: graph.place.slice(),
});

async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  try {
    await promise;
    assert.unreachable(`expected ${code}`);
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, code, (error as Error).message);
    if (message) assert.match((error as Error).message, message);
  }
}

test('default thread count: 1 on up to 2 cores, else cores − 1', () => {
  assert.is(defaultThreadCount(1), 1);
  assert.is(defaultThreadCount(2), 1);
  assert.is(defaultThreadCount(8), 7);
});

test('a large graph runs on a worker (its TypeScript loaded by the project hooks), with the same report as inline, and comes back whole', async () => {
  const graph = randomGraph(30_000, 2, 7);
  const expected = analyseParadoxes(copyOf(graph), anchors);
  const untouched = copyOf(graph);
  const before = pool.stats();
  const report = await pool.analyseParadoxes(graph, anchors);
  assert.is(pool.stats().completed, before.completed + 1);
  assert.is(pool.stats().inlineCompleted, before.inlineCompleted);
  assert.ok(expected.paradoxCount > 0);
  assert.equal(report, expected);
  assert.equal(graph, untouched);
});

test('a small graph runs inline', async () => {
  const graph = buildGraph([{ seconds: 10 }, { seconds: 5, causes: [0] }]);
  const before = pool.stats();
  const report = await pool.analyseParadoxes(graph);
  assert.is(report.countsByKind.causality_violation, 1);
  assert.is(pool.stats().completed, before.completed);
  assert.is(pool.stats().inlineCompleted, before.inlineCompleted + 1);
});

test('reports agree inline and on the worker over several random graphs and windows', async () => {
  for (let seed = 1; seed <= 5; seed++) {
    const graph = randomGraph(3_000, 3, seed);
    const window = { start: { seconds: 2_000n, nanos: 0 }, end: { seconds: 9_000, nanos: 0 } };
    for (const options of [{}, { window }, { maxListed: 5 }]) {
      const inline = await pool.analyseParadoxes(graph, anchors, options);
      const onWorker = await pool.analyseParadoxes(graph, anchors, { ...options, forceWorker: true });
      assert.equal(onWorker, inline, `seed ${seed}`);
    }
  }
});

test('transfer detaches the caller’s arrays as soon as a free worker takes them; a second analysis of the same graph meanwhile is refused', async () => {
  const graph = bigLinkedGraph(50_000, 'chain');
  const first = pool.analyseParadoxes(graph);
  assert.is(graph.seconds.length, 0);
  await rejectsWith(pool.analyseParadoxes(graph), 'internal', /already being analysed/);
  await rejectsWith(pool.analyseParadoxes(graph, [], { forceWorker: false, maxListed: 1 }), 'internal');
  assert.is((await first).paradoxCount, 0);
  assert.is(graph.seconds.length, 50_000);
  assert.is(graph.causeTargets[49_998], 49_998);
});

test('copy hand-off leaves the caller’s graph untouched throughout', async () => {
  const graph = bigLinkedGraph(50_000, 'ring');
  const pending = pool.analyseParadoxes(graph, [], { handOff: 'copy' });
  assert.is(graph.seconds.length, 50_000);
  assert.is((await pending).countsByKind.causal_loop, 1);
});

test('shared arrays are shared, and views into larger buffers are copied rather than transferred', async () => {
  const graph = bigLinkedGraph(30_000, 'chain');
  const shared = new Float64Array(new SharedArrayBuffer(graph.seconds.byteLength));
  shared.set(graph.seconds);
  const backing = new Int32Array(30_000 + 10);
  backing.set(graph.place, 5);
  const view = backing.subarray(5, 5 + 30_000);
  const mixed = { ...graph, seconds: shared, place: view };
  const pending = pool.analyseParadoxes(mixed, [], { forceWorker: true });
  assert.is(mixed.seconds, shared);
  assert.is(mixed.place, view);
  assert.is(backing.length, 30_010);
  assert.is((await pending).paradoxCount, 0);
  assert.is(mixed.seconds, shared);
  assert.is(mixed.place, view);
});

test('an error inside the worker comes back as an ApiError with its code, and the graph is handed back', async () => {
  const graph = bigLinkedGraph(30_000, 'chain');
  graph.causeTargets[7] = 99_999_999;
  await rejectsWith(pool.analyseParadoxes(graph, [], { forceWorker: true }), 'internal', /causeTargets\[7\] = 99999999/);
  assert.is(graph.seconds.length, 30_000);
});

test('a worker lost mid-task is a fault of ours: a plain error whose cause goes to the log, not to the client', async () => {
  const own = new AnalysisPool({ threads: 1 });
  const graph = bigLinkedGraph(300_000, 'chain');
  await own.analyseParadoxes(buildGraph([{ seconds: 1 }]), [], { forceWorker: true });
  const lost = own.analyseParadoxes(graph, [], { forceWorker: true, handOff: 'copy' }).catch((error: unknown) => error);
  // The pool's piscina is private: reaching it is the only way to lose a worker on purpose.
  await (own as unknown as { piscina: { threads: { terminate(): Promise<number> }[] } }).piscina.threads[0]!.terminate();
  const error = await lost;
  assert.instance(error, Error);
  assert.not.instance(error, ApiError);
  assert.ok((error as Error).cause, 'the cause is kept for the log');
  assert.equal(toApiError(error), new ApiError('internal', 'internal error (see the server log for this request id)'));
  assert.is((await own.analyseParadoxes(graph, [], { forceWorker: true, handOff: 'copy' })).paradoxCount, 0, 'a new worker takes the next task');
  await own.close();
});

test('nanosecond anchor noise is simulated on the worker, microsecond inline, the same as simulated directly', async () => {
  let before = pool.stats();
  assert.equal(await pool.simulateUnitNoise('anchor-7', 'nanosecond'), simulateUnitNoise('anchor-7', 'nanosecond'));
  assert.is(pool.stats().completed, before.completed + 1);
  before = pool.stats();
  assert.equal(await pool.simulateUnitNoise('anchor-7', 'microsecond'), simulateUnitNoise('anchor-7', 'microsecond'));
  assert.is(pool.stats().inlineCompleted, before.inlineCompleted + 1);
  assert.equal(await pool.simulateUnitNoise('anchor-7', 'microsecond', { forceWorker: true }), simulateUnitNoise('anchor-7', 'microsecond'));
});

test('under steady load on one worker, tasks finish in the order they came (none waits behind later ones)', async () => {
  let submitted = 0;
  const finished: number[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (submitted < 120) {
        const number = submitted++;
        await pool.simulateUnitNoise('fifo', 'microsecond', { forceWorker: true });
        finished.push(number);
      }
    }),
  );
  assert.equal(finished, Array.from({ length: 120 }, (_, i) => i));
});

test('a full queue refuses work with resource_exhausted; the accepted tasks still finish', async () => {
  const small = new AnalysisPool({ threads: 1, maxQueue: 1 });
  try {
    const simulate = () => small.simulateUnitNoise('q', 'nanosecond');
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, simulate));
    const refused = outcomes.filter((o) => o.status === 'rejected');
    assert.ok(refused.length >= 3, `${refused.length} refused`);
    assert.ok(outcomes.some((o) => o.status === 'fulfilled'));
    for (const outcome of refused) {
      const error = (outcome as PromiseRejectedResult).reason as ApiError;
      assert.instance(error, ApiError);
      assert.is(error.code, 'resource_exhausted');
      assert.match(error.message, 'analysis queue is full');
    }
    const graph = bigLinkedGraph(30_000, 'chain');
    const busy = [simulate(), simulate()];
    await rejectsWith(small.analyseParadoxes(graph), 'resource_exhausted');
    assert.is(graph.seconds.length, 30_000, 'a refused graph keeps its arrays');
    await Promise.allSettled(busy);
  } finally {
    await small.close();
  }
});

test('an analysis whose request ended while it waited for the worker never runs, and its graph stays whole', async () => {
  const own = new AnalysisPool({ threads: 1 });
  try {
    const busy = own.simulateUnitNoise('busy', 'nanosecond');
    const request = { ended: false };
    const graph = bigLinkedGraph(30_000, 'chain');
    const waiting = own.analyseParadoxes(graph, [], { forceWorker: true, forRequest: request });
    assert.is(graph.seconds.length, 30_000, 'a graph keeps its arrays while it waits');
    assert.is(own.stats().queueSize, 1);
    request.ended = true;
    await busy;
    await rejectsWith(waiting, 'canceled', /did not run/);
    assert.is(own.stats().completed, 1, 'only the simulation ran on the worker');
    assert.is(graph.seconds.length, 30_000);
    assert.is((await own.analyseParadoxes(graph, [], { forceWorker: true, forRequest: { ended: false } })).paradoxCount, 0, 'the graph can be analysed again');
    assert.is(own.stats().completed, 2);
  } finally {
    await own.close();
  }
});

test('after close, work is refused with unavailable', async () => {
  const closing = new AnalysisPool({ threads: 1 });
  await closing.close();
  await rejectsWith(closing.analyseParadoxes(buildGraph([{ seconds: 0 }])), 'unavailable');
  await rejectsWith(closing.simulateUnitNoise('x', 'nanosecond'), 'unavailable');
});

test('stats report threads, queue, completions and utilization', () => {
  const stats = pool.stats();
  assert.is(stats.threads, 1);
  assert.is(stats.queueSize, 0);
  assert.ok(stats.completed > 0);
  assert.ok(stats.utilization >= 0 && stats.utilization <= 1);
});

test.after(() => pool.close());

test.run();
