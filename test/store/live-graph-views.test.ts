// A view of the kept causal graph is reused for a later view only once its readers let go of it
// (src/store/live-causal-graph.ts): copying into memory already touched is what keeps a read after a write cheap.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LevelTimelineStore, GenesisEvent } from '../../src/store/index.ts';
import type { CausalGraphRead } from '../../src/store/types.ts';
import { parseInstant } from '../../src/time/index.ts';
import { canonicalGraph } from './graph-canonical.ts';
import { withTempStore } from './temp-store.ts';

const at = (day: number) => parseInstant(`2000-01-${String(day).padStart(2, '0')}T00:00:00Z`);
const genesis: GenesisEvent[] = Array.from({ length: 30 }, (_, i) => ({
  event_id: `g${i}`,
  description: `g${i}`,
  time: at(1 + (i % 28)),
  location: 'Oslo',
  causes: i > 0 ? [`g${i - 1}`] : [],
}));

/** A store with the genesis above on primary. */
const withStore = (run: (store: LevelTimelineStore) => Promise<void>) =>
  withTempStore(async (store) => {
    await store.bulkLoad('primary', genesis);
    await run(store);
  });

let written = 0;
const write = (store: LevelTimelineStore) =>
  store.manipulate('primary', `g${++written}`, { description: `change ${written}`, changes: [{ action: 'note', time: at(2) }] }, 'u');
/** A view's own arrays as they are now (node fields and targets are shared and only ever appended to). */
const copy = ({ graph }: CausalGraphRead) => ({ state: [...graph.state], offsets: [...graph.causeOffsets], ends: [...(graph.causeEnds ?? [])] });

test('a view held across writes keeps its arrays and contents; once released, the next view reuses them', () =>
  withStore(async (store) => {
    (await store.readCausalGraph('primary')).release();
    await write(store);
    const held = await store.readCausalGraph('primary');
    const heldContents = copy(held);
    const heldCanonical = canonicalGraph(held.graph);

    await write(store);
    const next = await store.readCausalGraph('primary');
    assert.is.not(next.graph.state.buffer, held.graph.state.buffer, 'a held view is not reused');
    next.release();
    await write(store);
    const after = await store.readCausalGraph('primary');
    assert.is(after.graph.state.buffer, next.graph.state.buffer, 'the released view before it is reused');
    assert.is(after.graph.causeOffsets.buffer, next.graph.causeOffsets.buffer);
    assert.is(after.graph.causeEnds!.buffer, next.graph.causeEnds!.buffer);
    assert.equal(copy(held), heldContents, 'the held view did not change');
    assert.equal(canonicalGraph(held.graph), heldCanonical);

    held.release();
    after.release();
    await write(store);
    const reused = await store.readCausalGraph('primary');
    assert.ok([held.graph.state.buffer, after.graph.state.buffer].includes(reused.graph.state.buffer), 'released arrays are reused');
    reused.release();
  }),
);

test('an overlay read gets arrays of its own, released like any view, and the graph stays as it was', () =>
  withStore(async (store) => {
    await write(store);
    const base = await store.readCausalGraph('primary');
    const baseContents = copy(base);
    const original = (await store.getEvent('primary', 'g20'))!;
    const created = { ...original, event_id: 'g20-changed', description: 'changed', supersedes: 'g20', status: 'manipulated' as const };
    const overlay = await store.readCausalGraph('primary', { overlay: [{ ...original, superseded_by: 'g20-changed' }, created] });
    assert.is.not(overlay.graph.state.buffer, base.graph.state.buffer);
    overlay.release();
    const again = await store.readCausalGraph('primary');
    assert.equal(copy(again), baseContents, 'the overlay was taken back');
    assert.equal(copy(base), baseContents);
    again.release();
    base.release();
  }),
);

test.run();
