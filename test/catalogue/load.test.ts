import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadCatalogueIfEmpty, readCatalogue } from '../../src/catalogue/load.ts';
import { LevelTimelineStore, locationWords } from '../../src/store/index.ts';
import { parseInstant } from '../../src/time/index.ts';

type Db = Level<Uint8Array, Uint8Array>;

async function withStore<T>(dir: string, use: (store: LevelTimelineStore) => Promise<T>): Promise<T> {
  const db: Db = new Level(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const store = new LevelTimelineStore(db, { primaryOwner: '' });
  await store.open();
  try {
    return await use(store);
  } finally {
    await store.close();
    await db.close();
  }
}

async function inTempDir(use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tms-catalogue-'));
  try {
    await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const catalogueSize = readCatalogue().length;

test('the first start loads the whole catalogue into primary; later starts load nothing', async () => {
  await inTempDir(async (dir) => {
    await withStore(dir, async (store) => {
      assert.is(await loadCatalogueIfEmpty(store), catalogueSize);
      assert.is((await store.getTimeline('primary'))!.event_count, catalogueSize);
      assert.is(await loadCatalogueIfEmpty(store), 0, 'a second call in the same run');
    });
    await withStore(dir, async (store) => {
      assert.is(await loadCatalogueIfEmpty(store), 0, 'after a restart');
      assert.is((await store.getTimeline('primary'))!.event_count, catalogueSize);
    });
  });
});

test('a first search for a famous city returns real history, in time order', async () => {
  await inTempDir(async (dir) => {
    await withStore(dir, async (store) => {
      await loadCatalogueIfEmpty(store);
      const page = await store.search('primary', { words: locationWords('paris'), pageSize: 500 });
      assert.ok(page.events.length >= 10, `${page.events.length} events in Paris`);
      assert.ok(page.events.some((event) => event.event_id === 'storming-of-the-bastille'));
      const times = page.events.map((event) => parseInstant(event.time).seconds);
      assert.equal(times, [...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

      const rome = await store.search('primary', {
        words: locationWords('Rome'),
        start: parseInstant('-000043-03-01T00:00:00Z'),
        end: parseInstant('-000043-03-31T00:00:00Z'),
        pageSize: 10,
      });
      assert.equal(rome.events.map((event) => event.event_id), ['assassination-of-julius-caesar']);

      const krakow = await store.search('primary', { words: locationWords('KRAKOW'), pageSize: 10 });
      assert.ok(krakow.events.some((event) => event.location === 'Kraków, Poland'));
    });
  });
});

test('the stored events keep the catalogue text, time and causes exactly', async () => {
  await inTempDir(async (dir) => {
    await withStore(dir, async (store) => {
      await loadCatalogueIfEmpty(store);
      const event = await store.getEvent('primary', 'battle-of-hastings');
      assert.ok(event);
      assert.is(event!.time, '1066-10-20T12:00:00Z');
      assert.is(event!.location, 'Battle, United Kingdom');
      assert.equal(event!.causes, ['battle-of-stamford-bridge', 'norman-landing-at-pevensey']);
      assert.is(event!.status, 'original');
    });
  });
});

test('a primary that already holds events or changes is left alone', async () => {
  await inTempDir(async (dir) => {
    await withStore(dir, async (store) => {
      await store.insertEvent('primary', { description: 'A traveller arrives.', time: parseInstant('2001-01-01T00:00:00Z'), location: 'Oslo, Norway', causes: [] }, 'someone');
      assert.is(await loadCatalogueIfEmpty(store), 0);
      assert.is((await store.getTimeline('primary'))!.event_count, 1);
      assert.is(await store.getEvent('primary', 'battle-of-hastings'), undefined);
    });
  });
});

test.run();
