import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { AnchorPin } from '../../src/analysis/causal-graph.ts';
import type { AnalysisWindow } from '../../src/analysis/instants.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { buildGraph } from './graph-builder.ts';
import type { TestEvent } from './graph-builder.ts';
import { oracleParadoxes, paradoxKey } from './paradox-oracle.ts';

// Few distinct values, so that ties, exact hour gaps and nanosecond differences come up often.
const seconds = fc.constantFrom(-3600, 0, 1, 1800, 3599, 3600, 3601, 7200);
const nanos = fc.constantFrom(0, 1, 999_999_999);

const scenario = fc.integer({ min: 0, max: 12 }).chain((count) => {
  const index = count > 0 ? fc.integer({ min: 0, max: count - 1 }) : fc.constant(0);
  const event: fc.Arbitrary<TestEvent> = fc.record({
    seconds,
    nanos,
    cancelled: fc.boolean(),
    causes: count > 0 ? fc.array(index, { maxLength: 4 }) : fc.constant([]),
    manipulatedAtMs: fc.constantFrom(0, 0, 1000, 1500, 2000, 3000),
    traveller: fc.constantFrom(-1, -1, 0, 1),
    place: fc.constantFrom(0, 1),
  });
  const anchor: fc.Arbitrary<AnchorPin> = fc.record({
    anchorId: fc.constantFrom('a', 'b', 'c'),
    seconds,
    nanos,
    setAtMs: fc.constantFrom(500, 1500, 2500),
  });
  const window: fc.Arbitrary<AnalysisWindow | undefined> = fc.option(
    fc.tuple(seconds, nanos, seconds, nanos).map(([s1, n1, s2, n2]) => {
      const [start, end] = s1 * 1e9 + n1 <= s2 * 1e9 + n2 ? [{ seconds: s1, nanos: n1 }, { seconds: s2, nanos: n2 }] : [{ seconds: s2, nanos: n2 }, { seconds: s1, nanos: n1 }];
      return { start, end };
    }),
    { nil: undefined },
  );
  return fc.record({ events: fc.array(event, { minLength: count, maxLength: count }), anchors: fc.array(anchor, { maxLength: 3 }), window });
});

test('on thousands of random small graphs the analysis finds exactly what the brute-force oracle finds', () => {
  fc.assert(
    fc.property(scenario, ({ events, anchors, window }) => {
      const graph = buildGraph(events);
      const report = analyseParadoxes(graph, anchors, { window, maxListed: 10_000 });
      const expected = oracleParadoxes(graph, anchors, window).map((p) => paradoxKey(p.kind, p.events, p.anchorId)).sort();
      const actual = report.paradoxes.map((p) => paradoxKey(p.kind, p.eventIndexes, p.anchorId)).sort();
      assert.equal(actual, expected);
      assert.is(report.paradoxCount, expected.length);
      assert.is(report.truncated, false);
      for (const p of report.paradoxes) assert.is(p.eventCount, new Set(p.eventIndexes).size, `${p.kind} eventCount`);
      const severities = report.paradoxes.map((paradox) => paradox.severity);
      assert.is(report.stability, severities.includes('critical') ? 'Critical' : severities.length > 0 ? 'Unstable' : 'Stable');
    }),
    { numRuns: 4000 },
  );
});

test('with a small list cap every paradox is still counted and the listed ones are a subset', () => {
  fc.assert(
    fc.property(scenario, fc.integer({ min: 0, max: 3 }), ({ events, anchors, window }, maxListed) => {
      const graph = buildGraph(events);
      const full = analyseParadoxes(graph, anchors, { window, maxListed: 10_000 });
      const capped = analyseParadoxes(graph, anchors, { window, maxListed });
      assert.is(capped.paradoxCount, full.paradoxCount);
      assert.equal(capped.countsByKind, full.countsByKind);
      assert.is(capped.stability, full.stability);
      assert.is(capped.paradoxes.length, Math.min(maxListed, full.paradoxCount));
      assert.is(capped.truncated, full.paradoxCount > maxListed);
      const all = new Set(full.paradoxes.map((p) => paradoxKey(p.kind, p.eventIndexes, p.anchorId)));
      for (const p of capped.paradoxes) assert.ok(all.has(paradoxKey(p.kind, p.eventIndexes, p.anchorId)));
    }),
    { numRuns: 1000 },
  );
});

test.run();
