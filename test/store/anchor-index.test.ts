import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnchorIndex } from '../../src/store/anchor-index.ts';
import type { AnchorRecord } from '../../src/store/types.ts';

const anchor = (anchorId: string): AnchorRecord => ({ anchor_id: anchorId, timeline_id: 'primary', timestamp: '2024-01-01T00:00:00Z' });

test('a level is read from storage once, then kept current by the changes applied', async () => {
  const index = new AnchorIndex();
  let loads = 0;
  const load = async () => {
    loads++;
    return [anchor('anc_b')];
  };
  assert.equal((await index.list(1, load)).map((a) => a.anchor_id), ['anc_b']);
  index.apply([{ level: 1, anchorId: 'anc_a', record: anchor('anc_a') }, { level: 2, anchorId: 'anc_x', record: anchor('anc_x') }]);
  assert.equal((await index.list(1, load)).map((a) => a.anchor_id), ['anc_a', 'anc_b']);
  index.apply([{ level: 1, anchorId: 'anc_b' }]);
  assert.equal((await index.list(1, load)).map((a) => a.anchor_id), ['anc_a']);
  assert.is(loads, 1);
  assert.ok(Object.isFrozen((await index.list(1, load))[0]), 'records are shared, so frozen');
});

test('a list read while a change was applied is not kept: the next list reads again', async () => {
  const index = new AnchorIndex();
  let loads = 0;
  let release = () => {};
  const slowLoad = () => {
    loads++;
    return new Promise<AnchorRecord[]>((resolve) => (release = () => resolve([anchor('anc_old')])));
  };
  const first = index.list(1, slowLoad);
  index.apply([{ level: 1, anchorId: 'anc_new', record: anchor('anc_new') }]);
  release();
  assert.equal((await first).map((a) => a.anchor_id), ['anc_old']);
  const fresh = async () => {
    loads++;
    return [anchor('anc_new'), anchor('anc_old')];
  };
  assert.equal((await index.list(1, fresh)).map((a) => a.anchor_id), ['anc_new', 'anc_old']);
  assert.is(loads, 2);
});

test('a dropped level and a cleared index read from storage again', async () => {
  const index = new AnchorIndex();
  let loads = 0;
  const load = async () => {
    loads++;
    return [anchor('anc_a')];
  };
  await index.list(1, load);
  index.dropLevel(1);
  await index.list(1, load);
  index.clear();
  await index.list(1, load);
  assert.is(loads, 3);
});

test('ids are ordered by their UTF-8 bytes, as storage orders them', async () => {
  const index = new AnchorIndex();
  await index.list(1, async () => []);
  for (const id of ['anc_\uffff', 'anc_\u{10000}', 'anc_a']) index.apply([{ level: 1, anchorId: id, record: anchor(id) }]);
  assert.equal((await index.list(1, async () => [])).map((a) => a.anchor_id), ['anc_a', 'anc_\uffff', 'anc_\u{10000}']);
});

test.run();
