import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnchorPin } from '../../src/analysis/causal-graph.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { describeParadox, MAX_EVENTS_PER_PARADOX, stabilityFromCounts, statusSentence } from '../../src/analysis/paradox-report.ts';
import { bigLinkedGraph, buildGraph } from './graph-builder.ts';

test('a consistent timeline is Stable with nothing to report', () => {
  const graph = buildGraph([{ seconds: 0 }, { seconds: 10, causes: [0] }, { seconds: 20, causes: [0, 1] }]);
  const report = analyseParadoxes(graph);
  assert.equal(report.paradoxes, []);
  assert.is(report.stability, 'Stable');
  assert.is(report.status, 'No paradoxes detected');
  assert.is(report.eventsAnalysed, 3);
  assert.is(report.linksAnalysed, 3);
  assert.is(report.anchorsAnalysed, 0);
});

test('a cause rescheduled after its effect is a critical causality violation, effect first', () => {
  const graph = buildGraph([{ seconds: 100 }, { seconds: 50, causes: [0] }]);
  const report = analyseParadoxes(graph);
  assert.is(report.paradoxes.length, 1);
  const [paradox] = report.paradoxes;
  assert.is(paradox!.kind, 'causality_violation');
  assert.is(paradox!.severity, 'critical');
  assert.equal(paradox!.eventIndexes, [1, 0]);
  assert.is(describeParadox(paradox!, graph.eventIds), '"e1" happens before its cause "e0"');
  assert.is(report.stability, 'Critical');
  assert.is(report.status, '1 paradox detected');
});

test('a nanosecond decides causality; equal times are not a violation', () => {
  const later = buildGraph([{ seconds: 5, nanos: 2 }, { seconds: 5, nanos: 1, causes: [0] }]);
  const same = buildGraph([{ seconds: 5, nanos: 1 }, { seconds: 5, nanos: 1, causes: [0] }]);
  assert.is(analyseParadoxes(later).countsByKind.causality_violation, 1);
  assert.is(analyseParadoxes(same).paradoxCount, 0);
});

test('an effect of cancelled causes is one orphaned-effect warning naming them all: Unstable', () => {
  const graph = buildGraph([
    { seconds: 0, cancelled: true },
    { seconds: 1, cancelled: true },
    { seconds: 2, causes: [0, 1, 0] },
    { seconds: 3, cancelled: true, causes: [0] },
  ]);
  const report = analyseParadoxes(graph);
  assert.is(report.paradoxCount, 1);
  const [paradox] = report.paradoxes;
  assert.is(paradox!.kind, 'orphaned_effect');
  assert.is(paradox!.severity, 'warning');
  assert.equal(paradox!.eventIndexes, [2, 0, 1]);
  assert.is(paradox!.eventCount, 3);
  assert.is(describeParadox(paradox!, graph.eventIds), '"e2" still happens although its causes "e0" and "e1" were cancelled');
  assert.is(report.stability, 'Unstable');
});

test('a cycle is one causal loop with its members ascending; a self-cause is a loop of one', () => {
  const graph = buildGraph([{ seconds: 0, causes: [2] }, { seconds: 0, causes: [0] }, { seconds: 0, causes: [1] }, { seconds: 0, causes: [3] }]);
  const report = analyseParadoxes(graph);
  const loops = report.paradoxes.filter((p) => p.kind === 'causal_loop');
  assert.equal(loops.map((p) => p.eventIndexes), [[0, 1, 2], [3]]);
  assert.is(describeParadox(loops[1]!, graph.eventIds), '"e3" is its own cause');
});

test('a loop of 10^6 events and a chain of 10^6 events need no recursion; a loop lists at most 1000 members', () => {
  const count = 1_000_000;
  const loop = analyseParadoxes(bigLinkedGraph(count, 'ring'));
  assert.is(loop.countsByKind.causal_loop, 1);
  const [paradox] = loop.paradoxes.filter((p) => p.kind === 'causal_loop');
  assert.is(paradox!.eventCount, count);
  assert.is(paradox!.eventIndexes.length, MAX_EVENTS_PER_PARADOX);
  assert.match(paradox!.description, '999997 more events');
  const chain = analyseParadoxes(bigLinkedGraph(count, 'chain'));
  assert.is(chain.paradoxCount, 0);
});

test('anchor breach: a change after the anchor was set, at or before its instant, with an effect past it', () => {
  const anchor = { anchorId: 'anchor-1', seconds: 100, nanos: 0, setAtMs: 5_000 };
  const graph = buildGraph([
    { seconds: 100, manipulatedAtMs: 6_000 },
    { seconds: 150, causes: [0] },
    { seconds: 90, manipulatedAtMs: 4_000 },
    { seconds: 160, causes: [2] },
    { seconds: 100, nanos: 1, manipulatedAtMs: 6_000 },
    { seconds: 170, causes: [4] },
  ]);
  const report = analyseParadoxes(graph, [anchor]);
  assert.is(report.paradoxCount, 1);
  const [paradox] = report.paradoxes;
  assert.is(paradox!.kind, 'anchor_breach');
  assert.is(paradox!.anchorId, 'anchor-1');
  assert.equal(paradox!.eventIndexes, [0, 1]);
  assert.is(report.anchorsAnalysed, 1);
});

test('anchor breach: a frozen pin array is ordered once and answers alike on every check; a mutable one is read afresh', () => {
  const graph = buildGraph([
    { seconds: 100, manipulatedAtMs: 6_000 },
    { seconds: 150, causes: [0] },
  ]);
  const late = { anchorId: 'late', seconds: 120, nanos: 0, setAtMs: 9_000 };
  const early = { anchorId: 'early', seconds: 100, nanos: 0, setAtMs: 5_000 };
  const frozen = Object.freeze([late, early]);
  const ids = (anchors: readonly AnchorPin[]) => analyseParadoxes(graph, anchors).paradoxes.map((p) => p.anchorId);
  assert.equal(ids(frozen), ['early']);
  assert.equal(ids(frozen), ['early']);
  const mutable = [late, early];
  assert.equal(ids(mutable), ['early']);
  mutable[0] = { ...late, setAtMs: 5_500 };
  assert.equal(ids(mutable), ['early', 'late']);
});

test('a timeline with 300 000 anchors is analysed (no argument list as long as the anchors)', () => {
  const graph = buildGraph([{ seconds: 100, manipulatedAtMs: 6_000 }, { seconds: 150, causes: [0] }]);
  const anchors = Array.from({ length: 300_000 }, (_, i) => ({ anchorId: `anchor-${i}`, seconds: 100, nanos: 0, setAtMs: 5_000 + i }));
  const report = analyseParadoxes(graph, anchors);
  assert.is(report.anchorsAnalysed, 300_000);
  assert.ok(report.paradoxCount >= 1);
  assert.is(report.paradoxes[0]!.kind, 'anchor_breach');
});

test('self encounter: stays are [t, t + 1 h), so arrivals exactly an hour apart do not meet', () => {
  const graph = buildGraph([
    { seconds: 0, traveller: 7, place: 1 },
    { seconds: 3599, nanos: 999_999_999, traveller: 7, place: 1 },
    { seconds: 3600, nanos: 999_999_999, traveller: 7, place: 1 },
    { seconds: 10, traveller: 7, place: 2 },
    { seconds: 10, traveller: 8, place: 1 },
  ]);
  const report = analyseParadoxes(graph);
  assert.equal(report.paradoxes.map((p) => p.eventIndexes), [[0, 1], [1, 2]]);
});

test('a crowd of 20 000 simultaneous arrivals is counted (2×10^8 pairs) without enumerating the pairs', () => {
  const count = 20_000;
  const graph = buildGraph(Array.from({ length: count }, () => ({ seconds: 0, traveller: 1, place: 1 })));
  const report = analyseParadoxes(graph, [], { maxListed: 10 });
  assert.is(report.countsByKind.self_encounter, (count * (count - 1)) / 2);
  assert.is(report.paradoxes.length, 10);
  assert.ok(report.truncated);
});

test('a window keeps only paradoxes touching an event inside it (both ends inclusive)', () => {
  const graph = buildGraph([
    { seconds: 100 },
    { seconds: 50, causes: [0] },
    { seconds: 1000, cancelled: true },
    { seconds: 2000, causes: [2] },
  ]);
  const window = (from: number, to: number) => ({ window: { start: { seconds: from, nanos: 0 }, end: { seconds: BigInt(to), nanos: 0 } } });
  assert.equal(analyseParadoxes(graph, [], window(100, 100)).paradoxes.map((p) => p.kind), ['causality_violation']);
  assert.equal(analyseParadoxes(graph, [], window(500, 1000)).paradoxes.map((p) => p.kind), ['orphaned_effect']);
  assert.is(analyseParadoxes(graph, [], window(101, 999)).stability, 'Stable');
  assert.is(analyseParadoxes(graph, [], window(101, 999)).eventsAnalysed, 4);
});

test('listing stops at maxListed with critical kinds first; counts and stability cover everything', () => {
  const events = [{ seconds: 0, cancelled: true }, ...Array.from({ length: 5 }, () => ({ seconds: 1, causes: [0] })), { seconds: 0, causes: [6] }];
  const report = analyseParadoxes(buildGraph(events), [], { maxListed: 1 });
  assert.equal(report.paradoxes.map((p) => p.kind), ['causal_loop']);
  assert.is(report.paradoxCount, 6);
  assert.is(report.warningCount, 5);
  assert.is(report.status, '6 paradoxes detected');
  assert.ok(report.truncated);
});

test('stabilityFromCounts and statusSentence', () => {
  assert.is(stabilityFromCounts(0, 0), 'Stable');
  assert.is(stabilityFromCounts(0, 1), 'Unstable');
  assert.is(stabilityFromCounts(1, 1), 'Critical');
  assert.is(stabilityFromCounts(1, 0), 'Critical');
  assert.is(statusSentence(0), 'No paradoxes detected');
  assert.is(statusSentence(1), '1 paradox detected');
  assert.is(statusSentence(3), '3 paradoxes detected');
});

test('a malformed or detached graph is refused with an internal error that says what is wrong', () => {
  const graph = buildGraph([{ seconds: 0 }, { seconds: 1, causes: [0] }]);
  const cases: [string, () => void, RegExp][] = [
    ['target', () => analyseParadoxes({ ...graph, causeTargets: Int32Array.of(5) }), /causeTargets\[0\] = 5/],
    ['offsets', () => analyseParadoxes({ ...graph, causeOffsets: Int32Array.of(0, 1) }), /causeOffsets has 2 entries/],
    ['detached', () => analyseParadoxes({ ...graph, nanos: new Int32Array(0) }), /nanos has 0 entries for 2 events/],
  ];
  for (const [name, run, message] of cases) {
    try {
      run();
      assert.unreachable(name);
    } catch (error) {
      assert.instance(error, ApiError, name);
      assert.is((error as ApiError).code, 'internal');
      assert.match((error as ApiError).message, message, name);
    }
  }
});

test.run();
