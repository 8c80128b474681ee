import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventRecord, TimelineStore } from '../../src/store/index.ts';
import { testBackends, type PlaceSpec, type TestPlace } from '../support/backends.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const child = new URL('./fixtures/durability-child.ts', import.meta.url).pathname;

/** Runs the child until it has acknowledged `acks` writes, then kills it with SIGKILL; returns the acks. */
function runAndKill(spec: PlaceSpec, mode: string, acks: number): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [...RUN_TYPESCRIPT, child, JSON.stringify(spec), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    const received: Record<string, unknown>[] = [];
    let buffer = '';
    let stderr = '';
    process_.stderr.on('data', (chunk) => (stderr += chunk));
    process_.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.startsWith('ack ')) received.push(JSON.parse(line.slice(4)) as Record<string, unknown>);
        if (received.length === acks) process_.kill('SIGKILL');
      }
    });
    process_.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(received);
      else reject(new Error(`child exited (${code}) before being killed: ${stderr}`));
    });
  });
}

async function withStore<T>(place: TestPlace, use: (store: TimelineStore) => Promise<T>, genesisIndexes = true): Promise<T> {
  const storage = await place.open({ timelineOptions: { genesisIndexes } });
  try {
    return await use(storage.timelines);
  } finally {
    await storage.close();
  }
}

async function searchAll(store: TimelineStore, timeline: string, words: string[] = []): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.search(timeline, { words, pageSize: 100, ...(cursor && { cursor }) });
    events.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor);
  return events;
}

for (const backend of testBackends) {
  test(`${backend.name}: every acknowledged write survives SIGKILL, and nothing is torn`, async () => {
    const place = await backend.newPlace();
    try {
      const acks = await runAndKill(place.spec, 'writes', 120);
      // Acks already in the pipe when the kill lands are real acknowledgements too (Node 24 writes them faster):
      // every one received is checked below.
      assert.ok(acks.length >= 120, `at least 120 acknowledged writes (${acks.length})`);
      await withStore(place, async (store) => {
        const branch = acks[0]!.timeline as string;
        assert.ok(await store.getTimeline(branch), 'acknowledged timeline exists');
        for (const ack of acks.slice(1)) {
          const timeline = ack.timeline as string;
          if (ack.inserted) assert.ok(await store.getEvent(timeline, ack.inserted as string), `inserted ${ack.inserted}`);
          if (ack.manipulated) {
            const original = await store.getEvent(timeline, ack.manipulated as string);
            assert.is(original?.superseded_by, ack.created, 'manipulation kept');
            assert.ok(await store.getEvent(timeline, ack.created as string));
          }
        }
        for (const timeline of ['primary', branch]) {
          const found = await searchAll(store, timeline);
          const record = await store.getTimeline(timeline);
          assert.is(found.length, record!.event_count, `search and count agree on ${timeline}`);
          for (const event of found) {
            assert.is(event.superseded_by, undefined, 'only events that happen are found');
            if (event.supersedes) {
              const original = await store.getEvent(timeline, event.supersedes);
              assert.is(original?.superseded_by, event.event_id, 'both halves of every manipulation or neither');
            }
          }
          const { graph } = await store.readCausalGraph(timeline);
          assert.is(graph.eventIds.length, found.length, 'graph agrees');
        }
        // Still writable after recovery.
        await store.insertEvent('primary', { description: 'after', time: { seconds: 0n, nanos: 0, fractionDigits: 0 }, location: 'Delft', causes: [] }, 'o');
      });
    } finally {
      await place.remove();
    }
  });

  test(`${backend.name}: a bulk load killed midway recovers a consistent genesis on reopen`, async () => {
    const place = await backend.newPlace();
    try {
      const acks = await runAndKill(place.spec, 'bulk', 6);
      assert.ok((acks[acks.length - 1]!.loaded as number) >= 3000);
      await withStore(place, async (store) => {
        const primary = await store.getTimeline('primary');
        const found = await searchAll(store, 'primary');
        assert.ok(primary!.event_count >= 3000, `at least the batches reported loaded (${primary!.event_count})`);
        assert.is(found.length, primary!.event_count);
        const { graph } = await store.readCausalGraph('primary');
        assert.is(graph.eventIds.length, found.length);
        const i = graph.eventIds.indexOf('g10');
        assert.equal([...graph.causeTargets.slice(graph.causeOffsets[i]!, graph.causeOffsets[i + 1]!)].map((t) => graph.eventIds[t]), ['g9']);
      });
      // The store's time index, which serves while the in-memory one builds, holds the recovered genesis too.
      const ids = (events: EventRecord[]) => events.map((event) => event.event_id);
      const inMemory = await withStore(place, async (store) => [ids(await searchAll(store, 'primary')), ids(await searchAll(store, 'primary', ['cairo']))]);
      const stored = await withStore(place, async (store) => [ids(await searchAll(store, 'primary')), ids(await searchAll(store, 'primary', ['cairo']))], false);
      assert.equal(stored, inMemory);
      assert.is(inMemory[1]!.length, Math.floor(inMemory[0]!.length / 2), 'every odd event is in Cairo');
      await withStore(place, (store) => store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'o' }));
    } finally {
      await place.remove();
    }
  });
}

test.run();
