// Several nodes on one PostgreSQL database behave as one store: each sees the others' acknowledged writes at
// once, none is lost when they write together, and a node that fell behind the pruned commit log reloads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadCatalogueIfEmpty, readCatalogue } from '../../src/catalogue/load.ts';
import type { Storage } from '../../src/store/storage.ts';
import { parseInstant } from '../../src/time/index.ts';
import { TEST_DATABASE_URL, testBackends, type TestPlace } from '../support/backends.ts';
import { withClient } from '../support/postgres.ts';
import { openPool } from '../../src/store/postgres/pool.ts';
import { migrate } from '../../src/store/postgres/migrations.ts';
import { eventually } from '../support/eventually.ts';
import { ApiError } from '../../src/domain/errors.ts';

const postgresql = testBackends.find((backend) => backend.name === 'postgresql');

const newEvent = (description: string) => ({
  description,
  time: parseInstant('1700-01-01T00:00:00Z'),
  location: 'Leiden',
  causes: [],
});
const branchSpec = (timelineId: string) => ({
  kind: 'parallel' as const,
  base_timeline_id: 'primary',
  timeline_id: timelineId,
  description: 'experiment',
  variation: 'v',
  owner: 'alice',
});

/** Settles as `promise` does, or fails after `ms`: for a write that must not wait behind another. */
async function notHeld<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, held]);
  } finally {
    clearTimeout(timer);
  }
}

const unchanged = { description: 'checked', changes: [] };

/** Timeline `checked`, with the event a check will change and another one. */
async function checkedTimeline(node: Storage) {
  await node.timelines.createTimeline(branchSpec('checked'));
  return [await node.timelines.insertEvent('checked', newEvent('target'), 'alice'), await node.timelines.insertEvent('checked', newEvent('other'), 'alice')] as const;
}

async function withNodes(count: number, work: (nodes: Storage[], place: TestPlace) => Promise<void>): Promise<void> {
  const place = await postgresql!.newPlace();
  const nodes: Storage[] = [];
  try {
    nodes.push(...(await Promise.all(Array.from({ length: count }, () => place.open()))));
    await work(nodes, place);
  } finally {
    await Promise.all(nodes.map((node) => node.close()));
    await place.remove();
  }
}

if (postgresql && TEST_DATABASE_URL) {
  test('nodes starting together on an empty database make one primary and load the catalogue once', async () => {
    await withNodes(3, async (nodes) => {
      const loaded = await Promise.all(nodes.map((node) => loadCatalogueIfEmpty(node.timelines)));
      assert.equal(loaded.filter((n) => n > 0), [readCatalogue().length], 'exactly one node loaded it');
      for (const node of nodes) {
        const timelines = await node.timelines.listTimelines();
        assert.equal(timelines.map((t) => t.timeline_id), ['primary']);
        assert.is(timelines[0]!.event_count, readCatalogue().length);
      }
    });
  });

  test('a write acknowledged by one node is seen by the next read on another', async () => {
    await withNodes(2, async ([a, b]) => {
      await a!.timelines.createTimeline(branchSpec('exp'));
      assert.is(await b!.timelines.timelineOwner('exp'), 'alice');
      const inserted = await a!.timelines.insertEvent('exp', newEvent('founding'), 'alice');
      assert.equal(await b!.timelines.getEvent('exp', inserted.event_id), inserted);
      const page = await b!.timelines.search('exp', { words: ['leiden'], pageSize: 10 });
      assert.equal(page.events.map((e) => e.event_id), [inserted.event_id]);

      const { created } = await b!.timelines.manipulate('exp', inserted.event_id, { description: 'moved', changes: [] }, 'alice');
      assert.is((await a!.timelines.getEvent('exp', inserted.event_id))!.superseded_by, created.event_id);
      assert.equal(await a!.timelines.getEvent('exp', created.event_id), created);
      const afterOnA = await a!.timelines.search('exp', { words: ['leiden'], pageSize: 10 });
      assert.equal(afterOnA.events.map((e) => e.event_id), [created.event_id], 'the cached page of the first search is not served');
      assert.is((await a!.timelines.getTimeline('exp'))!.revision, 2);

      await a!.timelines.putAnchor({ anchor_id: 'pin', timeline_id: 'exp', timestamp: '2024-01-01T00:00:00Z', description: 'd' });
      assert.is((await b!.timelines.getAnchor('pin'))?.timeline_id, 'exp');
      await b!.timelines.deleteTimeline('exp');
      assert.is(await a!.timelines.getTimeline('exp'), undefined);
      assert.is(await a!.timelines.getAnchor('pin'), undefined);
      await a!.timelines.createTimeline(branchSpec('exp'));
      assert.is((await b!.timelines.getTimeline('exp'))!.event_count, 0, 'the new "exp" starts empty on every node');
    });
  });

  test('anchors set and removed on one node are in the next list on another that had listed them before', async () => {
    await withNodes(2, async ([a, b]) => {
      const anchorOn = (anchorId: string) => ({ anchor_id: anchorId, timeline_id: 'primary', timestamp: '2024-01-01T00:00:00Z' });
      await a!.timelines.putAnchor(anchorOn('anc_b'));
      assert.equal((await b!.timelines.listAnchors('primary')).map((x) => x.anchor_id), ['anc_b']);
      await a!.timelines.putAnchor(anchorOn('anc_a'));
      assert.equal((await b!.timelines.listAnchors('primary')).map((x) => x.anchor_id), ['anc_a', 'anc_b']);
      await a!.timelines.deleteAnchor('anc_b');
      assert.equal((await b!.timelines.listAnchors('primary')).map((x) => x.anchor_id), ['anc_a']);
    });
  });

  test('concurrent writes from two nodes to one timeline are all kept, in one order both nodes agree on', async () => {
    await withNodes(2, async ([a, b]) => {
      await a!.timelines.createTimeline(branchSpec('busy'));
      const perNode = 40;
      const write = (node: Storage, tag: string) =>
        Promise.all(Array.from({ length: perNode }, (_, i) => node.timelines.insertEvent('busy', newEvent(`${tag}${i}`), 'alice')));
      const [fromA, fromB] = await Promise.all([write(a!, 'a'), write(b!, 'b')]);
      const ids = [...fromA, ...fromB].map((e) => e.event_id).sort();
      for (const node of [a!, b!]) {
        const timeline = (await node.timelines.getTimeline('busy'))!;
        assert.is(timeline.event_count, 2 * perNode);
        assert.is(timeline.revision, 2 * perNode, 'each write is one revision');
        const page = await node.timelines.search('busy', { words: [], pageSize: 1000 });
        assert.equal(page.events.map((e) => e.event_id).sort(), ids);
      }
    });
  });

  test('a safety check on one node holds no write of another node, and its turn checks again what the other changed', async () => {
    await withNodes(2, async ([a, b]) => {
      await a!.timelines.createTimeline(branchSpec('elsewhere'));
      const [event, other] = await checkedTimeline(a!);
      let checks = 0;
      const result = await a!.timelines.manipulate('checked', event.event_id, unchanged, 'alice', async () => {
        checks++;
        if (checks > 1) return;
        await notHeld(b!.timelines.insertEvent('elsewhere', newEvent('meanwhile'), 'bob'), 'a write to another timeline on another node');
        await notHeld(b!.timelines.manipulate('checked', other.event_id, { description: 'meanwhile', changes: [] }, 'bob'), 'a write to the checked timeline on another node');
      });
      assert.is(checks, 2, 'the other node changed the timeline after the first check');
      for (const node of [a!, b!]) {
        const page = await node.timelines.search('checked', { words: [], pageSize: 10 });
        assert.equal(page.events.map((e) => e.description).sort(), ['checked', 'meanwhile']);
        assert.is((await node.timelines.getTimeline('checked'))!.revision, 4);
      }
      assert.is(result.created.description, 'checked');
    });
  });

  test('a check that read the timeline and its anchors as they stay is not run again in the turn', async () => {
    await withNodes(2, async ([a, b]) => {
      await a!.timelines.createTimeline(branchSpec('elsewhere'));
      const [event] = await checkedTimeline(a!);
      let checks = 0;
      await a!.timelines.manipulate('checked', event.event_id, unchanged, 'alice', async () => {
        checks++;
        await notHeld(b!.timelines.insertEvent('elsewhere', newEvent('meanwhile'), 'bob'), 'a write to another timeline during the check');
      });
      assert.is(checks, 1, 'a write to another timeline changes nothing the check read');
    });
  });

  test('a refusal before the turn is taken back when another node changed the timeline and the turn passes', async () => {
    await withNodes(2, async ([a, b]) => {
      const [event, other] = await checkedTimeline(a!);
      let checks = 0;
      const result = await a!.timelines.manipulate('checked', event.event_id, unchanged, 'alice', async () => {
        checks++;
        if (checks > 1) return;
        await notHeld(b!.timelines.manipulate('checked', other.event_id, { description: 'meanwhile', changes: [] }, 'bob'), 'a write during the check');
        throw new ApiError('failed_precondition', 'paradox, as the timeline stood');
      });
      assert.is(checks, 2);
      assert.is((await b!.timelines.getEvent('checked', event.event_id))!.superseded_by, result.created.event_id);
    });
  });

  test('an anchor set on another node while a check runs makes the turn check again', async () => {
    await withNodes(2, async ([a, b]) => {
      const [event] = await checkedTimeline(a!);
      let checks = 0;
      const refused = await a!.timelines
        .manipulate('checked', event.event_id, unchanged, 'alice', async () => {
          checks++;
          if (checks === 1) await notHeld(b!.timelines.putAnchor({ anchor_id: 'anc_meanwhile', timeline_id: 'checked', timestamp: '1700-06-01T00:00:00Z' }), 'an anchor set during the check');
          else throw new ApiError('failed_precondition', 'the anchor is breached');
        })
        .then(() => undefined, (error: unknown) => error);
      assert.instance(refused, ApiError);
      assert.match((refused as ApiError).message, /anchor is breached/);
      assert.is(checks, 2);
      assert.equal(await a!.timelines.getEvent('checked', event.event_id), event, 'nothing written');
    });
  });

  test('a check asked for while its node writes the timeline runs in its turn, after those writes', async () => {
    await withNodes(1, async ([a]) => {
      const [event, other] = await checkedTimeline(a!);
      const seen: (string | undefined)[] = [];
      const [ahead] = await Promise.all([
        a!.timelines.manipulate('checked', other.event_id, { description: 'ahead', changes: [] }, 'alice'),
        a!.timelines.manipulate('checked', event.event_id, unchanged, 'alice', async () => {
          seen.push((await a!.timelines.getEvent('checked', other.event_id))!.superseded_by);
        }),
      ]);
      assert.equal(seen, [ahead.created.event_id], 'checked once, with the write ahead of it durable');
    });
  });

  test('a check that fails other than by refusing is no verdict: the turn checks again', async () => {
    await withNodes(1, async ([a]) => {
      const [event] = await checkedTimeline(a!);
      let checks = 0;
      const result = await a!.timelines.manipulate('checked', event.event_id, unchanged, 'alice', async () => {
        checks++;
        if (checks === 1) throw new ApiError('unavailable', 'the analysis pool is busy');
      });
      assert.is(checks, 2);
      assert.is(result.created.description, 'checked');
    });
  });

  test('closing a node waits for a check under way ahead of its write, and for one asked for meanwhile', async () => {
    await withNodes(2, async ([a, b]) => {
      const [event] = await checkedTimeline(a!);
      await a!.timelines.createTimeline(branchSpec('late'));
      const late = await a!.timelines.insertEvent('late', newEvent('target'), 'alice');
      const gated = () => {
        let release!: () => void;
        const opened = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const reached = new Promise<void>((resolve) => (entered = resolve));
        return { release, reached, check: async () => (entered(), await opened) };
      };
      const [first, second] = [gated(), gated()];
      const settled: string[] = [];
      const written = a!.timelines.manipulate('checked', event.event_id, unchanged, 'alice', first.check).finally(() => settled.push('written'));
      await first.reached;
      const closed = a!.timelines.close().finally(() => settled.push('closed'));
      // Asked for once the close has begun: its check runs in its turn, which the close waits for.
      const writtenLate = a!.timelines.manipulate('late', late.event_id, unchanged, 'alice', second.check).finally(() => settled.push('written late'));
      await second.reached;
      first.release();
      // Had the late check run ahead of its turn, the close would be over by now.
      await new Promise((resolve) => setTimeout(resolve, 200));
      second.release();
      const [result, resultLate] = await Promise.all([written, writtenLate, closed]);
      assert.equal([...settled].sort(), ['closed', 'written', 'written late']);
      assert.is(settled.at(-1), 'closed');
      assert.equal(await b!.timelines.getEvent('checked', result.created.event_id), result.created);
      assert.equal(await b!.timelines.getEvent('late', resultLate.created.event_id), resultLate.created);
    });
  });

  test('a node behind the pruned commit log reloads once, for a write and a read that catch up together', async () => {
    await withNodes(2, async ([a, b], place) => {
      await b!.timelines.createTimeline(branchSpec('late'));
      const inserted = await b!.timelines.insertEvent('late', newEvent('x'), 'bob');
      const { schema } = place.spec as { schema: string };
      await withClient(TEST_DATABASE_URL!, async (client) => {
        await client.query(`UPDATE ${schema}.tms_clock SET pruned_below = lsn + 1`);
        await client.query(`DELETE FROM ${schema}.tms_commit_log`);
      });
      // The reload is private: counted, and the first one held, through the instance.
      const store = a!.timelines as unknown as { loadState(): Promise<number[]> };
      const load = store.loadState.bind(store);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let loads = 0;
      let running = 0;
      let overlapped = false;
      store.loadState = async () => {
        loads++;
        overlapped ||= running > 0;
        running++;
        try {
          if (loads === 1) await gate;
          return await load();
        } finally {
          running--;
        }
      };
      const write = a!.timelines.insertEvent('late', newEvent('y'), 'alice');
      await eventually('the write reloads', () => loads === 1);
      const read = a!.timelines.getEvent('late', inserted.event_id);
      // A read catching up beside the write's reload would start a second one within milliseconds.
      await eventually('a second reload', () => loads > 1, 1000).catch(() => undefined);
      release();
      assert.equal(await read, inserted);
      await write;
      assert.not.ok(overlapped, 'one reload at a time');
      assert.is(loads, 1, 'the read found memory caught up by the write');
    });
  });

  test('a node behind the pruned commit log reloads its state and misses nothing', async () => {
    await withNodes(2, async ([a, b], place) => {
      await a!.timelines.createTimeline(branchSpec('late'));
      assert.ok(await b!.timelines.getTimeline('late'));
      const inserted = await a!.timelines.insertEvent('late', newEvent('x'), 'alice');
      const { schema } = place.spec as { schema: string };
      await withClient(TEST_DATABASE_URL!, async (client) => {
        await client.query(`UPDATE ${schema}.tms_clock SET pruned_below = lsn + 1`);
        await client.query(`DELETE FROM ${schema}.tms_commit_log`);
      });
      assert.equal(await b!.timelines.getEvent('late', inserted.event_id), inserted);
      assert.is((await b!.timelines.getTimeline('late'))!.event_count, 1);
    });
  });

  // Made again with as many commits as the running node saw (its LSN did not move) and with more (the new
  // database's log reaches past it): either way the node loads the new database whole, old pages and records gone.
  for (const extra of [0, 3]) {
    test(`a database made again under a running node, ${extra} commits past the LSN it saw: it reads only the new one`, async () => {
      await withNodes(1, async ([a], place) => {
        await a!.timelines.createTimeline(branchSpec('exp'));
        const old = await a!.timelines.insertEvent('exp', newEvent('in the old database'), 'alice');
        const query = { words: ['leiden'], pageSize: 10 };
        assert.equal((await a!.timelines.search('exp', query)).events, [old]);
        const { url, schema } = place.spec as { url: string; schema: string };
        await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
        const again = await place.open();
        try {
          await again.timelines.createTimeline(branchSpec('exp'));
          const made = [await again.timelines.insertEvent('exp', newEvent('in the new database'), 'bob')];
          for (let i = 0; i < extra; i++) made.push(await again.timelines.insertEvent('exp', newEvent(`later ${i}`), 'bob'));
          const page = await a!.timelines.search('exp', query);
          assert.equal(page.events.map((event) => event.description).sort(), made.map((event) => event.description).sort());
          assert.is((await a!.timelines.getTimeline('exp'))!.event_count, made.length);
          const first = await a!.timelines.getEvent('exp', made[0]!.event_id);
          assert.is(first?.description, 'in the new database');
          if (old.event_id !== made[0]!.event_id) assert.is(await a!.timelines.getEvent('exp', old.event_id), undefined);
        } finally {
          await again.close();
        }
      });
    });
  }

  test('a database made again by tms migrate under a running node: the node makes its primary', async () => {
    await withNodes(1, async ([a], place) => {
      await a!.timelines.createTimeline(branchSpec('exp'));
      const { url, schema } = place.spec as { url: string; schema: string };
      await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
      const pool = openPool({ url, schema });
      try {
        await migrate(pool, schema);
      } finally {
        await pool.end();
      }
      assert.equal((await a!.timelines.listTimelines()).map((t) => t.timeline_id), ['primary']);
      const made = await a!.timelines.insertEvent('primary', newEvent('in the new database'), 'alice');
      assert.equal((await a!.timelines.search('primary', { words: ['leiden'], pageSize: 10 })).events, [made]);
    });
  });

  test('a search that read the old database while a node reloaded the new one does not keep its page', async () => {
    await withNodes(1, async ([a], place) => {
      const query = { words: ['leiden'], pageSize: 10 };
      // A second node writes, so that node a reads the version from the database rather than from what it wrote.
      const writer = await place.open();
      await writer.timelines.createTimeline(branchSpec('exp'));
      await writer.timelines.insertEvent('exp', newEvent('in the old database'), 'alice');
      await writer.close();
      // Node a's first read of a version is answered, and held back until the database has been made again.
      const kv = (a!.timelines as unknown as { kv: { get(key: Uint8Array): Promise<Uint8Array | undefined> } }).kv;
      const get = kv.get.bind(kv);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      kv.get = async (key) => {
        kv.get = get;
        const value = await get(key);
        await released;
        return value;
      };
      const across = a!.timelines.search('exp', query);
      const { url, schema } = place.spec as { url: string; schema: string };
      await eventually('the search to read the version', () => kv.get === get);
      await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
      const again = await place.open();
      try {
        // The same timelines and revisions as before: the same stamps, other events.
        await again.timelines.createTimeline(branchSpec('exp'));
        const made = await again.timelines.insertEvent('exp', newEvent('in the new database'), 'bob');
        await a!.timelines.listTimelines();
        release();
        assert.equal((await across).events.map((event) => event.description), ['in the old database']);
        assert.equal((await a!.timelines.search('exp', query)).events, [made]);
      } finally {
        await again.close();
      }
    });
  });

  test('a reload for a database made again that fails is tried again by the next read', async () => {
    await withNodes(1, async ([a], place) => {
      await a!.timelines.createTimeline(branchSpec('exp'));
      const { url, schema } = place.spec as { url: string; schema: string };
      await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
      const again = await place.open();
      try {
        await again.timelines.createTimeline(branchSpec('other'));
        // The reload is private: its first run fails, through the instance.
        const store = a!.timelines as unknown as { loadState(): Promise<number[]> };
        const load = store.loadState.bind(store);
        let loads = 0;
        store.loadState = async () => {
          if (++loads === 1) throw new Error('connection lost');
          return load();
        };
        const failed = await a!.timelines.listTimelines().then(() => undefined, (error: unknown) => error);
        assert.match(String(failed), /connection lost/);
        assert.equal((await a!.timelines.listTimelines()).map((t) => t.timeline_id).sort(), ['other', 'primary']);
        assert.is(loads, 2);
      } finally {
        await again.close();
      }
    });
  });
}

test.run();
