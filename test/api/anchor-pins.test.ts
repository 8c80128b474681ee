// The pins' order and their reuse, over a stand-in that hands out anchor records the way the store does (frozen
// records in anchor-id order, the same array until an anchor changes, a record replaced when its anchor changes);
// the store itself is tested elsewhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnchorPin } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { anchorPins } from '../../src/api/anchor-pins.ts';
import { buildGraph } from '../analysis/graph-builder.ts';
import type { AnchorRecord, TimelineStore } from '../../src/store/types.ts';
import { compareUtf8 } from '../../src/store/utf8-order.ts';

const inIdOrder = (records: AnchorRecord[]) => Object.freeze([...records].sort((a, b) => compareUtf8(a.anchor_id, b.anchor_id)));

function standIn(initial: Record<string, AnchorRecord[]>, keepOrder = inIdOrder) {
  const lists = new Map(Object.entries(initial).map(([timelineId, records]) => [timelineId, keepOrder(records)]));
  const store = { listAnchors: async (timelineId: string) => lists.get(timelineId) ?? [] } as unknown as TimelineStore;
  const change = (timelineId: string, edit: (records: AnchorRecord[]) => void) => {
    const next = [...(lists.get(timelineId) ?? [])];
    edit(next);
    lists.set(timelineId, keepOrder(next));
  };
  const current = (timelineId: string) => [...(lists.get(timelineId) ?? [])];
  return { store, change, current };
}

const record = (id: string, timestamp: string): AnchorRecord =>
  Object.freeze({ anchor_id: id, timeline_id: 'primary', timestamp, created_at: '2026-11-26T10:00:00Z' });

const ids = (pins: readonly { anchorId: string }[]) => pins.map((pin) => pin.anchorId);
/** What a sort from scratch gives: by instant, and by anchor id at one instant. */
const sortedFresh = (records: readonly AnchorRecord[]) =>
  [...records]
    .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || compareUtf8(a.anchor_id, b.anchor_id))
    .map((r) => r.anchor_id);

/** A small deterministic generator, so that a failure can be replayed. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test('pins come in instant order, whatever the order of the ids', async () => {
  const records = [record('anc_a', '1900-01-01T00:00:00Z'), record('anc_b', '1066-10-14T09:00:00Z'), record('anc_c', '2025-01-01T00:00:00Z'), record('anc_d', '1789-07-14T10:00:00Z')];
  const pins = await anchorPins(standIn({ primary: records }).store, 'primary');
  assert.equal(ids(pins), ['anc_b', 'anc_d', 'anc_a', 'anc_c']);
  assert.is(pins[0]!.seconds, Date.parse('1066-10-14T09:00:00Z') / 1000);
  assert.ok(Object.isFrozen(pins), 'shared: frozen');
});

test('the same list gives the same pins again; a change gives the new order, the pins of unchanged anchors kept', async () => {
  const { store, change, current } = standIn({
    primary: Array.from({ length: 200 }, (_, k) => record(`anc_${String(k).padStart(3, '0')}`, new Date(Date.UTC(1000 + ((k * 7919) % 1000), 0, 1)).toISOString())),
  });
  const first = await anchorPins(store, 'primary');
  assert.is(await anchorPins(store, 'primary'), first, 'the very same array');
  assert.equal(ids(first), sortedFresh(current('primary')));

  let adjusted = '';
  change('primary', (list) => {
    list.splice(17, 1);
    adjusted = list[3]!.anchor_id;
    list.splice(3, 1, record(adjusted, '0500-06-01T00:00:00Z'));
    list.push(record('anc_new_early', '0100-01-01T00:00:00Z'), record('anc_new_late', '3000-01-01T00:00:00Z'));
  });
  const changed = await anchorPins(store, 'primary');
  assert.is.not(changed, first);
  assert.equal(ids(changed), sortedFresh(current('primary')));
  assert.is(changed.length, 201);
  assert.is(changed[0]!.anchorId, 'anc_new_early');
  assert.is(changed[1]!.anchorId, adjusted, 'an adjusted record is pinned anew');
  assert.is(changed[1]!.seconds, Date.parse('0500-06-01T00:00:00Z') / 1000);
  const unchanged = first.find((pin) => pin.anchorId === 'anc_100')!;
  assert.is(changed.find((pin) => pin.anchorId === 'anc_100'), unchanged, 'an unchanged anchor keeps its pin');
});

test('after many rounds of random changes, with several anchors at one instant, the order is a sort from scratch', async () => {
  const random = numbers(42);
  const instant = () => new Date(Date.UTC(1900 + Math.floor(random() * 20), 0, 1)).toISOString();
  const { store, change, current } = standIn({ primary: Array.from({ length: 50 }, (_, k) => record(`anc_${k}`, instant())) });
  let next = 50;
  for (let round = 0; round < 300; round++) {
    change('primary', (list) => {
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        const pick = Math.floor(random() * list.length);
        const what = random();
        if (what < 0.4) list.push(record(`anc_${next++}`, instant()));
        else if (what < 0.7 && list.length > 0) list.splice(pick, 1);
        else if (list.length > 0) list.splice(pick, 1, record(list[pick]!.anchor_id, instant()));
      }
    });
    assert.equal(ids(await anchorPins(store, 'primary')), sortedFresh(current('primary')), `round ${round}`);
  }
});

test('the pins hand the breach check their order and earliest setting: it finds what it finds in a copy it orders itself', async () => {
  const random = numbers(7);
  // One change in 1900, made at 5 000 ms, whose effect comes in 1950: anchors between them set before 5 000 ms are breached.
  const graph = buildGraph([
    { seconds: Date.parse('1900-01-01T00:00:00Z') / 1000, manipulatedAtMs: 5_000 },
    { seconds: Date.parse('1950-01-01T00:00:00Z') / 1000, causes: [0] },
  ]);
  const anchor = (id: string, setFrom = 3_000) =>
    Object.freeze({
      anchor_id: id,
      timeline_id: 'primary',
      timestamp: new Date(Date.UTC(1890 + Math.floor(random() * 70), 0, 1)).toISOString(),
      created_at: new Date(setFrom + Math.floor(random() * (7_000 - setFrom))).toISOString(),
    });
  // The first anchors were all set after the change; later ones may come earlier than every kept one.
  const { store, change } = standIn({ primary: Array.from({ length: 20 }, (_, k) => anchor(`anc_${k}`, 6_000)) });
  const breached = (pins: readonly AnchorPin[]) => analyseParadoxes(graph, pins).paradoxes.map((p) => p.anchorId).sort();
  assert.equal(breached(await anchorPins(store, 'primary')), [], 'none set before the change');
  let next = 20;
  let found = 0;
  for (let round = 0; round < 200; round++) {
    change('primary', (list) => {
      const pick = Math.floor(random() * list.length);
      const what = random();
      if (what < 0.4 || list.length === 0) list.push(anchor(`anc_${next++}`));
      else if (what < 0.7) list.splice(pick, 1);
      else list.splice(pick, 1, anchor(list[pick]!.anchor_id));
    });
    const pins = await anchorPins(store, 'primary');
    const expected = breached([...pins].reverse());
    assert.equal(breached(pins), expected, `round ${round}`);
    found += expected.length;
  }
  assert.ok(found > 0, 'some rounds had breaches');
});

test('a list whose records are all new (read from storage again) gives the same order', async () => {
  const { store, change, current } = standIn({ primary: Array.from({ length: 500 }, (_, k) => record(`anc_${k}`, new Date(Date.UTC(1500 + ((k * 37) % 500), 0, 1)).toISOString())) });
  const first = await anchorPins(store, 'primary');
  change('primary', (list) => list.splice(0, list.length, ...list.map((r) => record(r.anchor_id, r.timestamp))));
  const again = await anchorPins(store, 'primary');
  assert.is.not(again, first);
  assert.equal(ids(again), ids(first));
  assert.equal(ids(again), sortedFresh(current('primary')));
});

test('a list out of anchor-id order is sorted from scratch', async () => {
  const asGiven = (records: AnchorRecord[]) => Object.freeze([...records]);
  const { store, change, current } = standIn({ primary: [record('anc_m', '1900-01-01T00:00:00Z'), record('anc_c', '1800-01-01T00:00:00Z')] }, asGiven);
  assert.equal(ids(await anchorPins(store, 'primary')), ['anc_c', 'anc_m']);
  change('primary', (list) => list.push(record('anc_a', '2000-01-01T00:00:00Z'), record('anc_b', '1700-01-01T00:00:00Z')));
  assert.equal(ids(await anchorPins(store, 'primary')), sortedFresh(current('primary')));
  assert.equal(ids(await anchorPins(store, 'primary')), ['anc_b', 'anc_c', 'anc_m', 'anc_a']);
});

test('timelines and stores are kept apart', async () => {
  const one = standIn({ primary: [record('anc_1', '1900-01-01T00:00:00Z')], tl_x: [record('anc_2', '1800-01-01T00:00:00Z')] }).store;
  const two = standIn({ primary: [record('anc_3', '1700-01-01T00:00:00Z')] }).store;
  assert.equal(ids(await anchorPins(one, 'primary')), ['anc_1']);
  assert.equal(ids(await anchorPins(one, 'tl_x')), ['anc_2']);
  assert.equal(ids(await anchorPins(two, 'primary')), ['anc_3']);
  assert.equal(ids(await anchorPins(one, 'tl_none')), []);
});

test.run();
