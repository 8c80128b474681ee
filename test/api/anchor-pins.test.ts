// The pins' order and their reuse, over a stand-in that hands out anchor records the way the store does (frozen
// records, a new array each call, a record replaced when its anchor changes); the store itself is tested elsewhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { anchorPins } from '../../src/api/anchor-pins.ts';
import { compareInstantPoints } from '../../src/analysis/instants.ts';
import type { AnchorRecord, TimelineStore } from '../../src/store/types.ts';

function standIn(lists: Record<string, AnchorRecord[]>): TimelineStore {
  return { listAnchors: async (timelineId: string) => [...(lists[timelineId] ?? [])] } as unknown as TimelineStore;
}

const record = (id: string, timestamp: string): AnchorRecord =>
  Object.freeze({ anchor_id: id, timeline_id: 'primary', timestamp, created_at: '2026-11-26T10:00:00Z' });

const ids = (pins: readonly { anchorId: string }[]) => pins.map((pin) => pin.anchorId);
const sortedFresh = (records: AnchorRecord[]) => ids([...records].map((r) => ({ anchorId: r.anchor_id, seconds: Date.parse(r.timestamp) / 1000, nanos: 0 })).sort(compareInstantPoints));

test('pins come in instant order, whatever the order of the records', async () => {
  const records = [record('anc_a', '1900-01-01T00:00:00Z'), record('anc_b', '1066-10-14T09:00:00Z'), record('anc_c', '2025-01-01T00:00:00Z'), record('anc_d', '1789-07-14T10:00:00Z')];
  const pins = await anchorPins(standIn({ primary: records }), 'primary');
  assert.equal(ids(pins), ['anc_b', 'anc_d', 'anc_a', 'anc_c']);
  assert.is(pins[0]!.seconds, Date.parse('1066-10-14T09:00:00Z') / 1000);
  assert.ok(Object.isFrozen(pins), 'shared: frozen');
});

test('the same records give the same pins again, without a new sort; a change gives the new order', async () => {
  const lists: Record<string, AnchorRecord[]> = {
    primary: Array.from({ length: 200 }, (_, k) => record(`anc_${String(k).padStart(3, '0')}`, new Date(Date.UTC(1000 + ((k * 7919) % 1000), 0, 1)).toISOString())),
  };
  const store = standIn(lists);
  const first = await anchorPins(store, 'primary');
  assert.is(await anchorPins(store, 'primary'), first, 'the very same array');
  assert.equal(ids(first), sortedFresh(lists['primary']!));

  const list = lists['primary']!;
  list.splice(17, 1);
  list.splice(3, 1, record(list[3]!.anchor_id, '0500-06-01T00:00:00Z'));
  list.push(record('anc_new_early', '0100-01-01T00:00:00Z'), record('anc_new_late', '3000-01-01T00:00:00Z'));
  const changed = await anchorPins(store, 'primary');
  assert.is.not(changed, first);
  assert.equal(ids(changed), sortedFresh(list));
  assert.is(changed.length, 201);
  assert.is(changed[0]!.anchorId, 'anc_new_early');
  assert.is(changed[1]!.anchorId, list[3]!.anchor_id, 'an adjusted record is pinned anew');
});

test('timelines and stores are kept apart', async () => {
  const one = standIn({ primary: [record('anc_1', '1900-01-01T00:00:00Z')], tl_x: [record('anc_2', '1800-01-01T00:00:00Z')] });
  const two = standIn({ primary: [record('anc_3', '1700-01-01T00:00:00Z')] });
  assert.equal(ids(await anchorPins(one, 'primary')), ['anc_1']);
  assert.equal(ids(await anchorPins(one, 'tl_x')), ['anc_2']);
  assert.equal(ids(await anchorPins(two, 'primary')), ['anc_3']);
  assert.equal(ids(await anchorPins(one, 'tl_none')), []);
});

test.run();
