/**
 * The causal graph kept up to date write by write against the graph built afresh: random workloads of
 * manipulations (noted, rescheduled, prevented, some under ids that other events already name as causes),
 * reverts, inserts, alternate and parallel branches and deletions, over a bulk-loaded genesis. After every
 * step, on every timeline, the kept graph's canonical form (standing events, states, times, places,
 * travellers, resolved causes) and every analysis's answer equal those of a store that builds the graph
 * afresh from the same data. Safety-check overlays are checked against the graph built once the write lands.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AnchorPin, CausalGraph } from '../../src/analysis/causal-graph.ts';
import { analyseParadoxes } from '../../src/analysis/paradoxes.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { LevelTimelineStore, type GenesisEvent } from '../../src/store/index.ts';
import { mulberry32 } from '../../src/synthetic/prng.ts';
import { parseInstant } from '../../src/time/index.ts';
import { reportByIds } from '../analysis/report-by-ids.ts';
import { canonicalGraph, standingIds } from './graph-canonical.ts';
import { openTempLevel, type TempDb } from './temp-store.ts';

const GENESIS = 40;
const STEPS = 30;
/** Ids that genesis and inserted events name as causes before any event has them: manipulations may take them. */
const NAMED_AHEAD = ['ahead-1', 'ahead-2', 'ahead-3'];
const PLACES = ['Oslo, Norway', 'Bergen, Norway', 'Ålesund', 'oslo norway'];
const at = (day: number) => parseInstant(`2000-01-${String(day).padStart(2, '0')}T00:00:00Z`);

const anchors: AnchorPin[] = [
  { anchorId: 'a1', seconds: Date.UTC(2000, 0, 10) / 1000, nanos: 0, setAtMs: 0 },
  { anchorId: 'a2', seconds: Date.UTC(2000, 0, 20) / 1000, nanos: 0, setAtMs: Date.now() - 3_600_000 },
];

function genesis(random: () => number): GenesisEvent[] {
  return Array.from({ length: GENESIS }, (_, i) => {
    const causes: string[] = [];
    for (let k = Math.floor(random() * 3); k > 0; k--) causes.push(`g${Math.floor(random() * GENESIS)}`);
    if (random() < 0.1) causes.push(NAMED_AHEAD[Math.floor(random() * NAMED_AHEAD.length)]!);
    return { event_id: `g${i}`, description: `g${i}`, time: at(1 + Math.floor(random() * 28)), location: PLACES[i % PLACES.length]!, causes };
  });
}

/** What a graph says, independent of its numbering: its canonical form and the paradox report. */
function answers(graph: CausalGraph) {
  return { graph: canonicalGraph(graph), report: reportByIds(analyseParadoxes(graph, anchors, { maxListed: 100_000 }), graph) };
}

interface Workload {
  dir: string;
  db: TempDb;
  store: LevelTimelineStore;
  timelines: string[];
  /** Events made by manipulations, on any timeline: the ones a revert is most often tried on. */
  created: string[];
  random: () => number;
  pick<T>(items: readonly T[]): T;
}

/** A store that has never read a graph: it builds every one afresh from what is stored. */
async function freshAnswers(workload: Workload, timelineId: string) {
  const reference = new LevelTimelineStore(workload.db);
  await reference.open();
  try {
    return answers((await reference.readCausalGraph(timelineId)).graph);
  } finally {
    await reference.close();
  }
}

/** Reads let go of their views at once, so that later views reuse their arrays (the held ones must not change). */
async function standing(workload: Workload, timelineId: string): Promise<string[]> {
  const { graph, release } = await workload.store.readCausalGraph(timelineId);
  try {
    return standingIds(graph);
  } finally {
    release();
  }
}

/** One random write; refusals (conflicts, not found) are part of the workload. */
async function step(workload: Workload): Promise<string> {
  const { store, random, pick } = workload;
  const timelineId = pick(workload.timelines);
  const roll = random();
  try {
    if (roll < 0.4) {
      const eventId = pick(await standing(workload, timelineId));
      const action = pick(['note', 'reschedule', 'prevent'] as const);
      const new_event_id = random() < 0.15 ? pick(NAMED_AHEAD) : undefined;
      const checked = random() < 0.3;
      let overlaid: ReturnType<typeof answers> | undefined;
      const { created } = await store.manipulate(
        timelineId,
        eventId,
        { description: `${action} ${eventId}`, changes: [{ action, time: at(1 + Math.floor(random() * 28)) }], ...(new_event_id && { new_event_id }) },
        'u',
        checked
          ? async (proposal) => {
              const read = await store.readCausalGraph(timelineId, { overlay: [proposal.original, proposal.created] });
              overlaid = answers(read.graph);
              read.release();
            }
          : undefined,
      );
      workload.created.push(created.event_id);
      if (overlaid) assert.equal(overlaid, await freshAnswers(workload, timelineId), `the overlay of ${action} ${eventId} on ${timelineId} is the graph after it`);
      return `manipulate ${eventId} → ${created.event_id} (${action}) on ${timelineId}`;
    }
    if (roll < 0.6) {
      const eventId = workload.created.length > 0 && random() < 0.7 ? pick(workload.created) : pick(await standing(workload, timelineId));
      const event = await store.getEvent(timelineId, eventId);
      if (!event?.supersedes) return 'nothing to revert';
      await store.revert(timelineId, eventId, 'u');
      return `revert ${eventId} on ${timelineId}`;
    }
    if (roll < 0.75) {
      const ids = await standing(workload, timelineId);
      const causes = [pick(ids), ...(random() < 0.3 ? [pick(NAMED_AHEAD)] : [])];
      const arrival = random() < 0.3;
      const inserted = await store.insertEvent(
        timelineId,
        { description: 'inserted', time: at(1 + Math.floor(random() * 28)), location: pick(PLACES), causes, ...(arrival && { kind: 'arrival' as const, traveller: pick(['ann', 'bo']) }) },
        'u',
      );
      return `insert ${inserted.event_id} caused by ${causes.join(', ')} on ${timelineId}`;
    }
    if (roll < 0.92 || workload.timelines.length === 1) {
      const kind = random() < 0.5 ? 'alternate' : 'parallel';
      const branch = await store.createTimeline({ kind, base_timeline_id: timelineId, description: '', variation: kind === 'parallel' ? 'v' : '', owner: 'u' });
      workload.timelines.push(branch.timeline_id);
      return `${kind} ${branch.timeline_id} of ${timelineId}`;
    }
    const leaf = pick(workload.timelines.filter((id) => id !== 'primary'));
    await store.deleteTimeline(leaf);
    workload.timelines = workload.timelines.filter((id) => id !== leaf);
    return `delete ${leaf}`;
  } catch (error) {
    if (error instanceof ApiError) return `refused: ${error.message}`;
    throw error;
  }
}

async function runWorkload(seed: number): Promise<void> {
  const random = mulberry32(seed);
  const { dir, db, remove } = await openTempLevel('tms-live-graph-');
  const store = new LevelTimelineStore(db);
  await store.open();
  const workload: Workload = { dir, db, store, timelines: ['primary'], created: [], random, pick: (items) => items[Math.floor(random() * items.length)]! };
  const done: string[] = [];
  try {
    await store.bulkLoad('primary', genesis(random));
    const idLists = new Map<string, readonly string[]>();
    // Each timeline's last view is held across the next write: whatever later views reuse, it must not change.
    const held = new Map<string, { graph: CausalGraph; release: () => void; answers: ReturnType<typeof answers> }>();
    for (let i = 0; i < STEPS; i++) {
      done.push(await step(workload));
      for (const [timelineId, view] of held) {
        assert.equal(answers(view.graph), view.answers, `seed ${seed}: a view of ${timelineId} held across "${done[done.length - 1]}" changed`);
        view.release();
      }
      held.clear();
      for (const timelineId of workload.timelines) {
        const { graph, release } = await store.readCausalGraph(timelineId);
        const context = `seed ${seed}, ${timelineId} after:\n  ${done.join('\n  ')}`;
        const seen = answers(graph);
        assert.equal(seen, await freshAnswers(workload, timelineId), context);
        held.set(timelineId, { graph, release, answers: seen });
        // Once a timeline's graph has taken a delta, its id list is the one it keeps appending to: never built again.
        const before = idLists.get(timelineId);
        if (before && graph.causeEnds) assert.is(graph.eventIds, before, `rebuilt: ${context}`);
        if (graph.causeEnds) idLists.set(timelineId, graph.eventIds);
        if (process.env.LIVE_GRAPH_TRACE) console.log(done[done.length - 1], timelineId, graph.causeEnds ? 'delta' : 'built', graph.seconds.length);
      }
    }
  } finally {
    await store.close();
    await remove();
  }
}

test('the graph kept write by write answers as the graph built afresh, on every timeline after every write', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => runWorkload(seed)),
    { numRuns: 12 },
  );
});

test.run();
