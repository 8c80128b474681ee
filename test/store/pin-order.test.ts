// The anchor index's pins: their order through changes applied one by one, their reuse, and what they tell the
// anchor-breach check. The store's own answers are in the conformance suite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnchorPin } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { AnchorIndex } from '../../src/store/anchor-index.ts';
import type { AnchorRecord } from '../../src/store/types.ts';
import { compareUtf8 } from '../../src/store/utf8-order.ts';
import { buildGraph } from '../analysis/graph-builder.ts';

const LEVEL = 1;

/** An index holding `initial` on LEVEL, and the records it should hold after each change (in id order). */
function indexOf(initial: AnchorRecord[]) {
  const index = new AnchorIndex();
  const held = new Map(initial.map((record) => [record.anchor_id, record]));
  const load = async () => [...held.values()].sort((a, b) => compareUtf8(a.anchor_id, b.anchor_id));
  const put = (record: AnchorRecord) => {
    held.set(record.anchor_id, record);
    index.apply([{ level: LEVEL, anchorId: record.anchor_id, record }]);
  };
  const remove = (anchorId: string) => {
    held.delete(anchorId);
    index.apply([{ level: LEVEL, anchorId }]);
  };
  const pins = () => index.pins(LEVEL, load);
  return { pins, put, remove, current: () => [...held.values()] };
}

const record = (id: string, timestamp: string, createdAt = '2026-11-26T10:00:00Z'): AnchorRecord => ({ anchor_id: id, timeline_id: 'primary', timestamp, created_at: createdAt });

const ids = (pins: readonly { anchorId: string }[]) => pins.map((pin) => pin.anchorId);
/** What a sort from scratch gives: by instant, and by anchor id at one instant. */
const sortedFresh = (records: readonly AnchorRecord[]) =>
  [...records].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || compareUtf8(a.anchor_id, b.anchor_id)).map((r) => r.anchor_id);

/** A small deterministic generator, so that a failure can be replayed. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test('pins come in instant order, whatever the order of the ids', async () => {
  const { pins } = indexOf([record('anc_a', '1900-01-01T00:00:00Z'), record('anc_b', '1066-10-14T09:00:00Z'), record('anc_c', '2025-01-01T00:00:00Z'), record('anc_d', '1789-07-14T10:00:00Z')]);
  const first = await pins();
  assert.equal(ids(first), ['anc_b', 'anc_d', 'anc_a', 'anc_c']);
  assert.is(first[0]!.seconds, Date.parse('1066-10-14T09:00:00Z') / 1000);
  assert.is(first[0]!.setAtMs, Date.parse('2026-11-26T10:00:00Z'));
  assert.ok(Object.isFrozen(first), 'shared: frozen');
});

test('the same pins until a change; after one, the new order, with the pins of unchanged anchors kept', async () => {
  const { pins, put, remove, current } = indexOf(
    Array.from({ length: 200 }, (_, k) => record(`anc_${String(k).padStart(3, '0')}`, new Date(Date.UTC(1000 + ((k * 7919) % 1000), 0, 1)).toISOString())),
  );
  const first = await pins();
  assert.is(await pins(), first, 'the very same array');
  assert.equal(ids(first), sortedFresh(current()));

  remove('anc_017');
  put(record('anc_003', '0500-06-01T00:00:00Z'));
  put(record('anc_new_early', '0100-01-01T00:00:00Z'));
  put(record('anc_new_late', '3000-01-01T00:00:00Z'));
  const changed = await pins();
  assert.is.not(changed, first);
  assert.equal(ids(changed), sortedFresh(current()));
  assert.is(changed.length, 201);
  assert.equal(ids(changed.slice(0, 2)), ['anc_new_early', 'anc_003'], 'an adjusted record is pinned anew');
  assert.is(changed[1]!.seconds, Date.parse('0500-06-01T00:00:00Z') / 1000);
  assert.is(first.length, 200, 'the array handed out before stays as it was');
  const unchanged = first.find((pin) => pin.anchorId === 'anc_100')!;
  assert.is(changed.find((pin) => pin.anchorId === 'anc_100'), unchanged, 'an unchanged anchor keeps its pin');
});

test('after many rounds of random changes, with several anchors at one instant, the order is a sort from scratch', async () => {
  const random = numbers(42);
  const instant = () => new Date(Date.UTC(1900 + Math.floor(random() * 20), 0, 1)).toISOString();
  const { pins, put, remove, current } = indexOf(Array.from({ length: 50 }, (_, k) => record(`anc_${k}`, instant())));
  await pins();
  let next = 50;
  for (let round = 0; round < 300; round++) {
    for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
      const list = current();
      const pick = list[Math.floor(random() * list.length)];
      const what = random();
      if (what < 0.4 || !pick) put(record(`anc_${next++}`, instant()));
      else if (what < 0.7) remove(pick.anchor_id);
      else put(record(pick.anchor_id, instant()));
    }
    assert.equal(ids(await pins()), sortedFresh(current()), `round ${round}`);
  }
});

test('the pins tell the breach check their order and earliest setting: it finds what it finds in a copy it orders itself', async () => {
  const random = numbers(7);
  // One change in 1900, made at 5 000 ms, whose effect comes in 1950: anchors between them set before 5 000 ms are breached.
  const graph = buildGraph([
    { seconds: Date.parse('1900-01-01T00:00:00Z') / 1000, manipulatedAtMs: 5_000 },
    { seconds: Date.parse('1950-01-01T00:00:00Z') / 1000, causes: [0] },
  ]);
  const anchor = (id: string, setFrom = 3_000) =>
    record(id, new Date(Date.UTC(1890 + Math.floor(random() * 70), 0, 1)).toISOString(), new Date(setFrom + Math.floor(random() * (7_000 - setFrom))).toISOString());
  // The first anchors were all set after the change; later ones may come earlier than every one held.
  const { pins, put, remove, current } = indexOf(Array.from({ length: 20 }, (_, k) => anchor(`anc_${k}`, 6_000)));
  const breached = (anchors: readonly AnchorPin[]) => analyseParadoxes(graph, anchors).paradoxes.map((p) => p.anchorId).sort();
  assert.equal(breached(await pins()), [], 'none set before the change');
  let next = 20;
  let found = 0;
  for (let round = 0; round < 200; round++) {
    const list = current();
    const pick = list[Math.floor(random() * list.length)];
    const what = random();
    if (what < 0.4 || !pick) put(anchor(`anc_${next++}`));
    else if (what < 0.7) remove(pick.anchor_id);
    else put(anchor(pick.anchor_id));
    const held = await pins();
    const expected = breached([...held].reverse());
    assert.equal(breached(held), expected, `round ${round}`);
    found += expected.length;
  }
  assert.ok(found > 0, 'some rounds had breaches');
});

test('levels are kept apart, and a level not yet read gives its pins from storage', async () => {
  const index = new AnchorIndex();
  const one = [record('anc_1', '1900-01-01T00:00:00Z')];
  const two = [record('anc_2', '1800-01-01T00:00:00Z'), record('anc_3', '1700-01-01T00:00:00Z')];
  assert.equal(ids(await index.pins(1, async () => one)), ['anc_1']);
  assert.equal(ids(await index.pins(2, async () => two)), ['anc_3', 'anc_2']);
  index.apply([{ level: 2, anchorId: 'anc_3' }]);
  assert.equal(ids(await index.pins(1, async () => [])), ['anc_1'], 'held: not read again');
  assert.equal(ids(await index.pins(2, async () => [])), ['anc_2']);
});

test.run();
