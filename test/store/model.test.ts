/**
 * Random operation sequences against the timeline store on every backend and a naive model of the same semantics (alternates
 * copy their base's whole view, parallels recompute an overlay of their live base): every timeline must
 * show the same events, searches, counts and graph nodes in both.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiError } from '../../src/domain/errors.ts';
import type { EventRecord, TimelineStore } from '../../src/store/index.ts';
import { testBackends, type TestBackend } from '../support/backends.ts';
import { parseInstant } from '../../src/time/index.ts';

interface ModelTimeline {
  id: string;
  kind: 'primary' | 'alternate' | 'parallel';
  base?: ModelTimeline;
  frozen?: Map<string, EventRecord>;
  own: Map<string, EventRecord>;
  /** Write number at which this timeline first wrote its own version of an event. */
  ownSince: Map<string, number>;
}

/** Write number at which each event was created (genesis: 0). */
const born = new Map<string, number>();
let writes = 0;

function write(timeline: ModelTimeline, record: EventRecord): void {
  writes += 1;
  if (!born.has(record.event_id)) born.set(record.event_id, writes);
  if (!timeline.ownSince.has(record.event_id)) timeline.ownSince.set(record.event_id, writes);
  timeline.own.set(record.event_id, record);
}

const happens = (r: EventRecord) => r.superseded_by === undefined && r.status !== 'reverted' && r.status !== 'cancelled';
const stands = (r: EventRecord) => r.superseded_by === undefined && r.status !== 'reverted';

function view(timeline: ModelTimeline): Map<string, EventRecord> {
  if (timeline.kind === 'primary') return new Map(timeline.own);
  if (timeline.kind === 'alternate') return new Map([...timeline.frozen!, ...timeline.own]);
  const base = view(timeline.base!);
  const result = new Map<string, EventRecord>();
  for (const [id, record] of base) {
    // A successor created after this parallel changed its predecessor (or an ancestor of it) itself is
    // the base's later change to an event the parallel changed: not on the parallel.
    let successor = id;
    let predecessor = record.supersedes;
    let hidden = false;
    while (predecessor !== undefined) {
      if (timeline.own.has(predecessor)) {
        hidden = born.get(successor)! > timeline.ownSince.get(predecessor)!;
        break;
      }
      successor = predecessor;
      predecessor = base.get(predecessor)?.supersedes;
    }
    if (!hidden) result.set(id, record);
  }
  for (const [id, record] of timeline.own) result.set(id, record);
  return result;
}

type Op =
  | { kind: 'insert'; timeline: number; day: number; place: number; cause: number }
  | { kind: 'manipulate'; timeline: number; event: number; action: 'note' | 'reschedule' | 'prevent'; day: number }
  | { kind: 'revert'; timeline: number; event: number }
  | { kind: 'branch'; timeline: number; alternate: boolean };

const day = fc.integer({ min: 1, max: 9 });
// Small pools, so operations often meet on the same events and timelines.
const pick = fc.nat({ max: 5 });
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), timeline: pick, day, place: fc.nat({ max: 2 }), cause: fc.nat() }),
  fc.record({ kind: fc.constant('manipulate' as const), timeline: pick, event: pick, action: fc.constantFrom('note' as const, 'reschedule' as const, 'prevent' as const), day }),
  fc.record({ kind: fc.constant('revert' as const), timeline: pick, event: fc.nat() }),
  fc.record({ kind: fc.constant('branch' as const), timeline: pick, alternate: fc.boolean() }),
);
const PLACES = ['Oslo, Norway', 'Bergen, Norway', 'Ålesund'];
const time = (d: number) => parseInstant(`2000-01-0${d}T00:00:00Z`);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as ApiError).code ?? String(error);
  }
}

async function searchAll(store: TimelineStore, timeline: string, words: string[]): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.search(timeline, { words, pageSize: 3, ...(cursor && { cursor }) });
    found.push(...page.events.map((e) => e.event_id));
    cursor = page.nextCursor;
  } while (cursor);
  return found;
}

const byTimeThenId = (a: EventRecord, b: EventRecord) => {
  const ta = parseInstant(a.time);
  const tb = parseInstant(b.time);
  if (ta.seconds !== tb.seconds) return ta.seconds < tb.seconds ? -1 : 1;
  return a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0;
};

async function runScenario(backend: TestBackend, genesis: number, ops: Op[], genesisIndexes: boolean): Promise<void> {
  const place = await backend.newPlace();
  const storage = await place.open({ timelineOptions: { genesisIndexes } });
  const store = storage.timelines;
  try {
    born.clear();
    writes = 0;
    const primary: ModelTimeline = { id: 'primary', kind: 'primary', own: new Map(), ownSince: new Map() };
    const timelines = [primary];
    const eventIds: string[] = [];
    const genesisEvents = Array.from({ length: genesis }, (_, i) => ({ event_id: `g${i}`, description: `g${i}`, time: time(1 + (i % 9)), location: PLACES[i % 3]!, causes: i ? [`g${i - 1}`] : [] }));
    if (genesis > 0) await store.bulkLoad('primary', genesisEvents);
    for (const event of genesisEvents) {
      primary.own.set(event.event_id, { event_id: event.event_id, timeline_id: 'primary', description: event.description, time: `2000-01-0${1 + (Number(event.event_id.slice(1)) % 9)}T00:00:00Z`, location: event.location, causes: event.causes, status: 'original' });
      primary.ownSince.set(event.event_id, 0);
      born.set(event.event_id, 0);
      eventIds.push(event.event_id);
    }

    for (const op of ops) {
      // Counted after every operation, so that most counts are carried forward from the one before.
      for (const known of timelines) {
        const happening = [...view(known).values()].filter(happens).length;
        assert.is((await store.getTimeline(known.id))!.event_count, happening, `event_count of ${known.id} before ${JSON.stringify(op)}`);
      }
      const timeline = timelines[op.timeline % timelines.length]!;
      if (op.kind === 'insert') {
        const causes = eventIds.length ? [eventIds[op.cause % eventIds.length]!] : [];
        const record = await store.insertEvent(timeline.id, { description: 'i', time: time(op.day), location: PLACES[op.place]!, causes }, 'm');
        write(timeline, record);
        eventIds.push(record.event_id);
      } else if (op.kind === 'branch') {
        const record = await store.createTimeline({ kind: op.alternate ? 'alternate' : 'parallel', base_timeline_id: timeline.id, description: '', variation: '', owner: 'm' });
        timelines.push(
          op.alternate
            ? { id: record.timeline_id, kind: 'alternate', frozen: view(timeline), own: new Map(), ownSince: new Map() }
            : { id: record.timeline_id, kind: 'parallel', base: timeline, own: new Map(), ownSince: new Map() },
        );
      } else if (eventIds.length > 0) {
        // Manipulations mostly hit the oldest events; reverts aim at the newest (usually manipulations).
        const id = op.kind === 'revert' ? eventIds[eventIds.length - 1 - (op.event % Math.min(eventIds.length, 4))]! : eventIds[op.event % eventIds.length]!;
        const current = view(timeline).get(id);
        if (op.kind === 'manipulate') {
          const changes = op.action === 'note' ? [] : [{ action: op.action, time: time(op.day) }];
          const expected = !current ? 'not_found' : current.superseded_by ? 'aborted' : current.status === 'reverted' || current.status === 'cancelled' ? 'failed_precondition' : 'ok';
          const attempt = store.manipulate(timeline.id, id, { description: 'm', changes }, 'm');
          if (expected !== 'ok') {
            assert.is(await codeOf(attempt), expected, `manipulate ${id} on ${timeline.id}`);
            continue;
          }
          const { original, created } = await attempt;
          assert.equal(original, { ...current!, timeline_id: timeline.id, superseded_by: created.event_id });
          assert.is(created.time, op.action === 'reschedule' ? `2000-01-0${op.day}T00:00:00Z` : current!.time);
          assert.is(created.status, op.action === 'prevent' ? 'cancelled' : 'manipulated');
          write(timeline, original);
          write(timeline, created);
          eventIds.push(created.event_id);
        } else {
          const visible = view(timeline);
          const expected = !current
            ? 'not_found'
            : current.supersedes === undefined || current.status === 'reverted' || current.superseded_by !== undefined || visible.get(current.supersedes)?.superseded_by !== id
              ? 'failed_precondition'
              : 'ok';
          const attempt = store.revert(timeline.id, id, 'm');
          if (expected !== 'ok') {
            assert.is(await codeOf(attempt), expected, `revert ${id} on ${timeline.id}`);
            continue;
          }
          const { reverted, restored } = await attempt;
          assert.type(reverted.reverted_at, 'string', 'a revert records when');
          assert.equal(reverted, { ...current!, timeline_id: timeline.id, status: 'reverted', reverted_by: 'm', reverted_at: reverted.reverted_at });
          const original = { ...visible.get(current!.supersedes!)!, timeline_id: timeline.id };
          delete original.superseded_by;
          assert.equal(restored, original);
          write(timeline, reverted);
          write(timeline, restored);
        }
      }
    }

    for (const timeline of timelines) {
      const visible = view(timeline);
      for (const id of eventIds) assert.equal(await store.getEvent(timeline.id, id), visible.get(id), `event ${id} on ${timeline.id}`);
      const happening = [...visible.values()].filter(happens).sort(byTimeThenId);
      assert.equal(await searchAll(store, timeline.id, []), happening.map((e) => e.event_id), `time search on ${timeline.id}`);
      assert.equal(
        await searchAll(store, timeline.id, ['norway']),
        happening.filter((e) => e.location.endsWith('Norway')).map((e) => e.event_id),
        `word search on ${timeline.id}`,
      );
      assert.is((await store.getTimeline(timeline.id))!.event_count, happening.length, `event_count of ${timeline.id}`);
      const graph = (await store.readCausalGraph(timeline.id)).graph;
      assert.equal([...graph.eventIds].sort(), [...visible.values()].filter(stands).map((e) => e.event_id).sort(), `graph of ${timeline.id}`);
    }
  } finally {
    await storage.close();
    await place.remove();
  }
}

for (const backend of testBackends) {
  test(`random operation sequences: the store on ${backend.name} matches the model on every timeline`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 6 }), fc.array(opArbitrary, { minLength: 1, maxLength: 40 }), fc.boolean(), (genesis, ops, genesisIndexes) =>
        runScenario(backend, genesis, ops, genesisIndexes),
      ),
      { numRuns: 120 },
    );
  });
}

test.run();
