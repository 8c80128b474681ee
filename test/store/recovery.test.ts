import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { levelPrefix, prefixEnd, Tag, tagKey } from '../../src/store/keys.ts';
import { LevelTimelineStore } from '../../src/store/index.ts';
import { parseInstant } from '../../src/time/index.ts';
import { testBackends } from '../support/backends.ts';


for (const backend of testBackends) {
  test(`${backend.name}: a delete interrupted after its first batch is finished at the next open`, async () => {
    const place = await backend.newPlace();
    try {
      let storage = await place.open();
      const branch = await storage.timelines.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'o' });
      const bonn = { description: 'e', time: parseInstant('2000-01-01T00:00:00Z'), location: 'Bonn', causes: [] };
      for (let i = 0; i < 5; i++) await storage.timelines.insertEvent(branch.timeline_id, bonn, 'o');
      await storage.close();
      // The crash: the record is gone and the tombstone written (one batch), the ranges not yet cleared.
      let raw = await place.openKeyValues();
      const recordKey = tagKey(Tag.timeline, branch.timeline_id);
      const level = (JSON.parse(Buffer.from((await raw.kv.get(recordKey))!).toString()) as { level: number }).level;
      await raw.kv.write(
        [
          { type: 'del', key: recordKey },
          { type: 'put', key: levelPrefix(Tag.tombstone, level), value: Buffer.from(branch.timeline_id) },
        ],
        true,
      );
      await raw.close();

      const failures: unknown[][] = [];
      const consoleError = console.error;
      console.error = (...args: unknown[]) => failures.push(args);
      try {
        storage = await place.open();
        assert.is(await storage.timelines.getTimeline(branch.timeline_id), undefined);
        await storage.close(); // waits for the background clean-up, and for the compaction the clean-up starts
      } finally {
        console.error = consoleError;
      }
      assert.equal(failures, [], 'no background task outlived the close');
      raw = await place.openKeyValues();
      for (const tag of [Tag.version, Tag.summary, Tag.timeIndex, Tag.wordIndex, Tag.tombstone]) {
        const start = levelPrefix(tag, level);
        assert.equal(await raw.kv.keys({ gte: start, lt: prefixEnd(start) }), [], `tag ${String.fromCharCode(tag)} cleared`);
      }
      await raw.close();
      storage = await place.open();
      const another = await storage.timelines.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'o' });
      assert.is((await storage.timelines.getTimeline(another.timeline_id))!.event_count, 0, 'a new level starts empty');
      await storage.close();
    } finally {
      await place.remove();
    }
  });
}

for (const backend of testBackends) {
  test(`${backend.name}: a first load cut short after its snapshot went ahead, before its last batch, is finished at the next open`, async () => {
    const place = await backend.newPlace();
    try {
      const events = Array.from({ length: 120 }, (_, i) => ({
        event_id: `g${i}`,
        description: `genesis ${i}`,
        time: parseInstant(`1${String(100 + i).padStart(3, '0')}-01-01T00:00:00Z`),
        location: i % 3 ? 'Lima, Peru' : 'Cusco, Peru',
        causes: i > 0 ? [`g${i - 1}`] : [],
      }));
      let storage = await place.open();
      await storage.timelines.bulkLoad('primary', events, { batchSize: 40 });
      await storage.close();
      // The crash: every batch and the snapshot's chunks are written, the record still says `loading` (as claimed).
      const raw = await place.openKeyValues();
      const recordKey = tagKey(Tag.timeline, 'primary');
      const record = JSON.parse(Buffer.from((await raw.kv.get(recordKey))!).toString()) as Record<string, unknown>;
      assert.ok((record.snapshot_chunks as number) > 0, 'the load wrote a snapshot');
      const claimed: Record<string, unknown> = { ...record, loading: true, genesis_count: 0, snapshot_chunks: 0 };
      delete claimed.genesis_loads;
      delete claimed.frequent_words;
      await raw.kv.write([{ type: 'put', key: recordKey, value: Buffer.from(JSON.stringify(claimed)) }], true);
      await raw.close();

      storage = await place.open();
      try {
        const store = storage.timelines;
        assert.is((await store.getTimeline('primary'))!.event_count, 120);
        const { graph } = await store.readCausalGraph('primary');
        assert.is(graph.eventIds.length, 120);
        const i = graph.eventIds.indexOf('g7');
        assert.equal([...graph.causeTargets.slice(graph.causeOffsets[i]!, graph.causeOffsets[i + 1]!)].map((t) => graph.eventIds[t]), ['g6']);
        const page = await store.search('primary', { words: ['cusco'], pageSize: 100 });
        assert.equal(page.events.map((event) => event.event_id), events.filter((_, n) => n % 3 === 0).map((event) => event.event_id));
      } finally {
        await storage.close();
      }
    } finally {
      await place.remove();
    }
  });
}

for (const backend of testBackends) {
  test(`${backend.name}: a load whose source fails part-way fails once its batches are written, and the next open finishes them`, async () => {
    const place = await backend.newPlace();
    try {
      function* source() {
        for (let i = 0; i < 130; i++) {
          yield { event_id: `s${i}`, description: 'e', time: parseInstant(`1${String(100 + i).padStart(3, '0')}-01-01T00:00:00Z`), location: 'Lima', causes: [] };
        }
        throw new Error('the source broke');
      }
      let storage = await place.open();
      let written = 0;
      try {
        await storage.timelines.bulkLoad('primary', source(), { batchSize: 40, onProgress: (count) => (written = count) });
        assert.unreachable('the load succeeded');
      } catch (error) {
        assert.is((error as Error).message, 'the source broke');
      }
      assert.is(written, 120, 'every batch handed to the store was written before the load failed');
      await storage.close();
      storage = await place.open();
      try {
        assert.is((await storage.timelines.getTimeline('primary'))!.event_count, 120);
      } finally {
        await storage.close();
      }
    } finally {
      await place.remove();
    }
  });
}

test('leveldb: the store keeps to its sublevel and works with a utf8 root', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-recovery-'));
  try {
    const db = new Level<string, string>(dir, { valueEncoding: 'utf8' });
    await db.open();
    await db.put('accounts!x', 'kept');
    const store = new LevelTimelineStore(db);
    await store.open();
    const event = await store.insertEvent('primary', { description: 'e', time: parseInstant('2000-01-01T00:00:00Z'), location: 'Köln', causes: [] }, 'o');
    assert.equal((await store.search('primary', { words: ['koln'], pageSize: 5 })).events, [event]);
    await store.close();
    assert.is(await db.get('accounts!x'), 'kept');
    for await (const key of db.keys()) assert.ok(key === 'accounts!x' || key.startsWith('!t!'), `unexpected key ${key}`);
    await db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
