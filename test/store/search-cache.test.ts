import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { entryBytes, pageBytes, SearchPageCache } from '../../src/store/search-cache.ts';
import type { EventRecord, SearchPage } from '../../src/store/types.ts';
import { parseInstant } from '../../src/time/index.ts';
import { withTempStore } from './temp-store.ts';

const page = (size: number): SearchPage => ({ events: Array.from({ length: size }, (_, i) => ({ event_id: `e${i}`, description: '', location: '', time: '', causes: [] }) as unknown as EventRecord) });
const bytesOf = (size: number, key = 'a') => entryBytes(key, page(size));

test('the page cache keeps the most recently used pages within its byte budget, and counts hits and misses', () => {
  const cache = new SearchPageCache(bytesOf(4) * 2 + bytesOf(4) / 2);
  cache.set('a', page(4));
  cache.set('b', page(4));
  assert.ok(cache.get('a'), 'a is used, so b is now the oldest');
  cache.set('c', page(4));
  assert.is(cache.get('b'), undefined, 'b evicted: three pages exceed the budget');
  assert.is(cache.get('a')?.events.length, 4);
  assert.is(cache.get('c')?.events.length, 4);
  assert.equal(cache.counts(), { name: 'search_page', hits: 3, misses: 1, entries: 2, bytes: bytesOf(4) * 2, maxBytes: bytesOf(4) * 2 + bytesOf(4) / 2 });
});

test('a page is weighed by its contents, so long descriptions take more of the budget', () => {
  const long = (text: string): SearchPage => ({ events: [{ ...page(1).events[0]!, description: text }] });
  assert.ok(pageBytes(long('x'.repeat(10_000))) > pageBytes(long('x')) + 19_000);
  const cache = new SearchPageCache(entryBytes('big', long('x'.repeat(10_000))) + entryBytes('small 1', long('x')) * 2);
  cache.set('big', long('x'.repeat(10_000)));
  cache.set('small 1', long('x'));
  cache.set('small 2', long('x'));
  cache.set('small 3', long('x'));
  assert.is(cache.get('big'), undefined, 'the big page made room for the small ones');
  assert.is(cache.counts().entries, 3);
});

test('pages that found nothing weigh something too, so they cannot pile up', () => {
  const cache = new SearchPageCache(bytesOf(0, 'empty 99') * 3);
  for (let i = 0; i < 100; i++) cache.set(`empty ${i}`, page(0));
  assert.is(cache.counts().entries, 3);
  assert.ok(cache.get('empty 99'));
  assert.is(cache.get('empty 0'), undefined);
});

test('an entry is weighed with its key, the bookkeeping of the cache and the copies of its events the faces keep', () => {
  assert.ok(entryBytes('k', page(0)) >= 2048, 'a page with no events still costs about 2 KiB (bench/cache-memory.ts)');
  assert.is(entryBytes('k'.repeat(1001), page(0)) - entryBytes('k', page(0)), 2000, 'each character of the key, at two bytes');
  assert.is(entryBytes('k', page(3)) - entryBytes('k', page(0)), 2 * (pageBytes(page(3)) - pageBytes(page(0))), 'the events, and once more for the faces');
});

test('the page cache skips scans (pages over its page limit) and is off at 0', () => {
  const cache = new SearchPageCache(1_000_000, 100);
  cache.set('scan', page(101));
  assert.is(cache.get('scan'), undefined);
  const off = new SearchPageCache(0);
  off.set('a', page(1));
  off.set('b', page(0));
  assert.is(off.get('a'), undefined);
  assert.is(off.get('b'), undefined);
  assert.equal(off.counts(), { name: 'search_page', hits: 0, misses: 2, entries: 0, bytes: 0, maxBytes: 0 });
});

const at = (text: string) => parseInstant(text);
const ids = (result: SearchPage) => result.events.map((event) => `${event.description}@${event.timeline_id}`);
const query = { words: ['rome'], pageSize: 10 };

test('a write anywhere in the read chain is seen by the next identical search', () =>
  withTempStore(async (store) => {
    const first = await store.insertEvent('primary', { description: 'founding', time: at('0100-01-01T00:00:00Z'), location: 'Rome', causes: [] }, 'u');
    const branch = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const parallel = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    assert.equal(ids(await store.search(branch.timeline_id, query)), ['founding@primary']);
    assert.is(await store.search(branch.timeline_id, query), await store.search(branch.timeline_id, query), 'the same page object: served from the cache');

    await store.insertEvent('primary', { description: 'sack', time: at('0410-08-24T00:00:00Z'), location: 'Rome', causes: [] }, 'u');
    assert.equal(ids(await store.search('primary', query)), ['founding@primary', 'sack@primary']);
    assert.equal(ids(await store.search(parallel.timeline_id, query)), ['founding@primary', 'sack@primary'], 'a parallel sees later writes to its base');
    assert.equal(ids(await store.search(branch.timeline_id, query)), ['founding@primary'], 'an alternate is frozen at its fork');

    await store.manipulate(branch.timeline_id, first.event_id, { description: 'refounded', changes: [] }, 'u');
    assert.equal(ids(await store.search(branch.timeline_id, query)), [`refounded@${branch.timeline_id}`], 'its own write');
    await store.manipulate(parallel.timeline_id, first.event_id, { description: 'moved', changes: [] }, 'u');
    assert.equal(ids(await store.search(parallel.timeline_id, query)), [`moved@${parallel.timeline_id}`, 'sack@primary']);
    assert.equal((await store.search('primary', query)).events.map((event) => event.description), ['founding', 'sack'], 'primary is untouched');
  }),
);

test('cached pages cannot be changed by a caller', () =>
  withTempStore(async (store) => {
    await store.insertEvent('primary', { description: 'founding', time: at('0100-01-01T00:00:00Z'), location: 'Rome', causes: [] }, 'u');
    const result = await store.search('primary', query);
    assert.throws(() => {
      (result.events[0] as { description: string }).description = 'changed';
    });
    assert.throws(() => result.events.push(result.events[0]!), 'nor the list of events');
    assert.is((await store.search('primary', query)).events.length, 1);
    assert.is((await store.search('primary', query)).events[0]!.description, 'founding');
  }),
);

test('a bulk load that gives an event a new genesis version is seen by lookups and searches read before it', () =>
  withTempStore(async (store) => {
    const genesis = (description: string) => ({ event_id: 'g1', description, time: at('0100-01-01T00:00:00Z'), location: 'Rome', causes: [] });
    await store.bulkLoad('primary', [genesis('first load')]);
    assert.is((await store.getEvent('primary', 'g1'))!.description, 'first load');
    assert.equal(ids(await store.search('primary', query)), ['first load@primary']);

    await store.bulkLoad('primary', [genesis('second load')]);
    assert.is((await store.getEvent('primary', 'g1'))!.description, 'second load', 'not the version read before');
    assert.equal(ids(await store.search('primary', query)), ['second load@primary']);
  }),
);

test.run();
