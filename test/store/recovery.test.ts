import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { levelPrefix, prefixEnd, Tag, tagKey } from '../../src/store/keys.ts';
import { LevelTimelineStore } from '../../src/store/index.ts';
import { parseInstant } from '../../src/time/index.ts';

type Db = Level<Uint8Array, Uint8Array>;

async function open(dir: string): Promise<{ db: Db; store: LevelTimelineStore }> {
  const db: Db = new Level(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const store = new LevelTimelineStore(db);
  await store.open();
  return { db, store };
}

test('a delete interrupted after its first batch is finished at the next open', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-recovery-'));
  try {
    let { db, store } = await open(dir);
    const branch = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'o' });
    for (let i = 0; i < 5; i++) await store.insertEvent(branch.timeline_id, { description: 'e', time: parseInstant('2000-01-01T00:00:00Z'), location: 'Bonn', causes: [] }, 'o');
    await store.close();
    // The crash: the record is gone and the tombstone written (one batch), the ranges not yet cleared.
    const sub = db.sublevel<Uint8Array, Uint8Array>('t', { keyEncoding: 'view', valueEncoding: 'view' });
    const recordKey = tagKey(Tag.timeline, branch.timeline_id);
    const level = (JSON.parse(Buffer.from((await sub.get(recordKey))!).toString()) as { level: number }).level;
    await sub.batch([
      { type: 'del', key: recordKey },
      { type: 'put', key: levelPrefix(Tag.tombstone, level), value: Buffer.from(branch.timeline_id) },
    ]);
    await db.close();

    ({ db, store } = await open(dir));
    assert.is(await store.getTimeline(branch.timeline_id), undefined);
    await store.close(); // waits for the background clean-up
    const sub2 = db.sublevel<Uint8Array, Uint8Array>('t', { keyEncoding: 'view', valueEncoding: 'view' });
    for (const tag of [Tag.version, Tag.summary, Tag.timeIndex, Tag.wordIndex, Tag.tombstone]) {
      const start = levelPrefix(tag, level);
      assert.equal(await sub2.keys({ gte: start, lt: prefixEnd(start) }).all(), [], `tag ${String.fromCharCode(tag)} cleared`);
    }
    const another = await (async () => {
      await db.close();
      ({ db, store } = await open(dir));
      return store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'o' });
    })();
    assert.is((await store.getTimeline(another.timeline_id))!.event_count, 0, 'a new level starts empty');
    await store.close();
    await db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the store keeps to its sublevel and works with a utf8 root', async () => {
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
