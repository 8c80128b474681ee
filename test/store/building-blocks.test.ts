import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeSummary, encodeSummary, summarise } from '../../src/store/event-codec.ts';
import { decodeSnapshot, encodeSnapshot, encodeSnapshotChunks, GenesisAccumulator } from '../../src/store/genesis-snapshot.ts';
import { randomId } from '../../src/store/ids.ts';
import { parseVersionKey, prefixEnd, Tag, versionKey } from '../../src/store/keys.ts';
import { locationWords } from '../../src/store/location-words.ts';
import { decodeTimeEntry } from '../../src/store/genesis-time-entry.ts';
import { INSTANT_KEY_BYTES } from '../../src/time/key-encoding.ts';
import { LocalCommitLog } from '../../src/store/commit-log.ts';
import { decodeNote, encodeNote } from '../../src/store/change-note.ts';
import { FreshCheck } from '../../src/store/fresh-check.ts';
import { lastOpOnEachKey, type OrderedKeyValueStore, type WriteOp } from '../../src/store/ordered-kv.ts';
import { BadCursorError, decodeCursor, encodeCursor } from '../../src/store/page-cursor.ts';
import { VersionIndex } from '../../src/store/version-index.ts';
import { VersionReader } from '../../src/store/version-reader.ts';
import { encodeRecord } from '../../src/store/event-codec.ts';
import { WriterQueues } from '../../src/store/writer-queues.ts';
import { encodeInstantKey, parseInstant } from '../../src/time/index.ts';

const words = suite('locationWords');
words('lowercases, strips accents and splits on non-letters', () => {
  assert.equal(locationWords('São Paulo, Brasil'), ['sao', 'paulo', 'brasil']);
  assert.equal(locationWords('  Zürich—Hauptbahnhof (Gleis 7) '), ['zurich', 'hauptbahnhof', 'gleis', '7']);
  assert.equal(locationWords('ÅLESUND'), ['alesund']);
  assert.equal(locationWords('東京都'), ['東京都']);
  assert.equal(locationWords(',,,'), []);
});
words('folds letters that have no decomposition as they are usually written plain', () => {
  assert.equal(locationWords('Łódź, Poland'), ['lodz', 'poland']);
  assert.equal(locationWords('Straße des 17. Juni, Berlin'), ['strasse', 'des', '17', 'juni', 'berlin']);
  assert.equal(locationWords('Ærøskøbing, Denmark'), ['aeroskobing', 'denmark']);
  assert.equal(locationWords('Kızılırmak River, Turkey'), ['kizilirmak', 'river', 'turkey']);
  assert.equal(locationWords('İstanbul'), ['istanbul']);
  assert.equal(locationWords('Þingvellir, Ísland'), ['thingvellir', 'island']);
  assert.equal(locationWords('Œuvre, ĐAKOVO, Ħamrun'), ['oeuvre', 'dakovo', 'hamrun']);
  for (const place of ['Łódź', 'STRASSE', 'Ærø', 'Kızılırmak']) {
    assert.equal(locationWords(locationWords(place).join(' ')), locationWords(place), `${place}: folding twice changes nothing`);
  }
});
words('words a store wrote before the letter folds are read folded', () => {
  assert.equal(decodeTimeEntry(Buffer.from('łodz poland')), { words: ['lodz', 'poland'] });
  const summary = encodeSummary({ lsn: 1, happens: true, timeText: 'A'.repeat(INSTANT_KEY_BYTES), words: ['ærøskøbing', 'denmark'] });
  assert.equal(decodeSummary(1, summary).words, ['aeroskobing', 'denmark']);
  const accumulator = new GenesisAccumulator();
  accumulator.add('e1', 0, 0, 'łodz poland', []);
  accumulator.add('e2', 1, 0, 'strasse des 17 juni berlin', []);
  const built = accumulator.build();
  built.placeNames = ['łodz poland', 'straße des 17 juni berlin'];
  assert.equal(decodeSnapshot(encodeSnapshot(built)).placeNames, ['lodz poland', 'strasse des 17 juni berlin']);
});
words.run();

const keys = suite('keys');
keys('version keys round-trip and sort by lsn within an event', () => {
  const key = versionKey(Tag.version, 7, 'evt_é', 2 ** 40 + 3);
  assert.equal(parseVersionKey(key), { level: 7, eventId: 'evt_é', lsn: 2 ** 40 + 3 });
  assert.ok(Buffer.compare(versionKey(Tag.version, 7, 'a', 1), versionKey(Tag.version, 7, 'a', 256)) < 0);
  assert.ok(Buffer.compare(versionKey(Tag.version, 7, 'a', 9), versionKey(Tag.version, 7, 'ab', 0)) < 0, 'NUL separator keeps ids apart');
});
keys('prefixEnd is the least key above the prefix range', () => {
  assert.equal([...prefixEnd(Buffer.from([1, 2, 3]))], [1, 2, 4]);
  assert.equal([...prefixEnd(Buffer.from([1, 0xff, 0xff]))], [2]);
});
keys('random ids are prefixed base32 of the right length', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => randomId('evt_')));
  assert.is(ids.size, 1000);
  for (const id of ids) assert.match(id, /^evt_[a-z2-7]{20}$/);
});
keys.run();

const cursor = suite('page cursor');
cursor('round-trips and is bound to its query', () => {
  const paris = { timelineId: 'primary', words: ['paris'] };
  const sortKey = Buffer.concat([Buffer.alloc(12, 1), Buffer.from('evt_x')]);
  const token = encodeCursor(paris, sortKey);
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  assert.equal(decodeCursor(token, { ...paris }), sortKey);
  const differentQuery = /^belongs to a different query/;
  const start = Buffer.alloc(12, 2);
  for (const other of [
    { timelineId: 'primary', words: ['rome'] },
    { timelineId: 'tl_other', words: ['paris'] },
    { timelineId: 'primary', words: ['paris', 'texas'] },
    { timelineId: 'primary', words: ['pa', 'ris'] },
    { ...paris, startKey: start },
    { ...paris, endKey: start },
  ]) {
    assert.throws(() => decodeCursor(token, other), (error: Error) => error instanceof BadCursorError && differentQuery.test(error.message), JSON.stringify(other));
  }
  const ranged = { ...paris, startKey: start };
  assert.throws(() => decodeCursor(encodeCursor(ranged, sortKey), { ...paris, endKey: start }), (error: Error) => differentQuery.test(error.message));
  assert.throws(() => decodeCursor('!!', paris), (error: Error) => error instanceof BadCursorError && error.message === 'not a page token of this service');
  assert.throws(() => decodeCursor(token.slice(0, 10), paris), (error: Error) => error instanceof BadCursorError && error.message === 'not a page token of this service');
  const unknownVersion = Buffer.from(token, 'base64url');
  unknownVersion[0] = 3;
  assert.throws(() => decodeCursor(unknownVersion.toString('base64url'), paris), (error: Error) => error.message === 'not a page token of this service');
});
cursor('a token of the version before (a SHA-256 fingerprint) is still taken, and still bound to its query', () => {
  const sortKey = Buffer.concat([Buffer.alloc(12, 1), Buffer.from('evt_x')]);
  const start = Buffer.alloc(12, 2);
  // Version 1: SHA-256 of the JSON of [timeline, words, start key hex, end key hex], its first 8 bytes.
  const shaFingerprint = createHash('sha256').update(JSON.stringify(['primary', ['paris'], start.toString('hex'), ''])).digest().subarray(0, 8);
  const versionOne = Buffer.concat([Buffer.from([1]), shaFingerprint, sortKey]).toString('base64url');
  assert.equal(decodeCursor(versionOne, { timelineId: 'primary', words: ['paris'], startKey: start }), sortKey);
  assert.throws(() => decodeCursor(versionOne, { timelineId: 'primary', words: ['paris'] }), (error: Error) => /^belongs to a different query/.test(error.message));
});
cursor.run();

const snapshot = suite('genesis snapshot');
snapshot('encodes, decodes, replaces repeated ids and keeps outside causes', () => {
  const accumulator = new GenesisAccumulator();
  accumulator.add('a', -1e10, 5, 'rome', []);
  accumulator.add('b', 2, 0, 'paris', ['a', 'outside']);
  accumulator.add('c', 3, 999_999_999, 'rome', ['b', 'a']);
  accumulator.add('b', 4, 1, 'lyon', ['c']);
  const built = accumulator.build();
  const decoded = decodeSnapshot(encodeSnapshot(built));
  assert.equal(decoded.ids, ['a', 'b', 'c']);
  assert.equal([...decoded.seconds], [-1e10, 4, 3]);
  assert.equal([...decoded.nanos], [5, 1, 999_999_999]);
  assert.equal(decoded.placeNames[decoded.place[1]!], 'lyon');
  assert.is(decoded.place[0], decoded.place[2]);
  assert.equal([...decoded.causeOffsets], [0, 0, 1, 3]);
  assert.equal([...decoded.causeTargets], [2, 1, 0]);
  assert.equal(decoded.external, []);
  const appended = new GenesisAccumulator(decoded);
  appended.add('d', 9, 0, 'rome', ['zzz', 'a']);
  const again = decodeSnapshot(encodeSnapshot(appended.build()));
  assert.equal(again.ids, ['a', 'b', 'c', 'd']);
  assert.equal(again.external, [[3, 'zzz']]);
  assert.equal([...again.causeTargets.slice(again.causeOffsets[3]!, again.causeOffsets[4]!)], [0]);
  const empty = decodeSnapshot(encodeSnapshot(new GenesisAccumulator().build()));
  assert.equal(empty.ids, []);
});
snapshot('an id loaded again at another place counts at its new place only', () => {
  const accumulator = new GenesisAccumulator();
  for (let i = 0; i < 300; i++) accumulator.add(`e${i}`, i, 0, 'oslo norway', []);
  for (let i = 0; i < 200; i++) accumulator.add(`e${i}`, i, 0, 'rome italy', []);
  assert.equal(accumulator.timeOf('e7'), { seconds: 7, nanos: 0 });
  assert.is(accumulator.timeOf('e300'), undefined);
  assert.equal(accumulator.frequentWords(), { rome: 200, italy: 200, oslo: 100, norway: 100 });
});
snapshot('the stored format does not change: a known snapshot encodes to known bytes, whole or in chunks', () => {
  const accumulator = new GenesisAccumulator();
  accumulator.add('a', -1e10, 5, 'rome', []);
  accumulator.add('ев-2', 2, 0, 'paris', ['a', 'outside']);
  accumulator.add('🕰', 3, 999_999_999, 'rome', ['ев-2', 'a']);
  const built = accumulator.build();
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  // The bytes of the current format (times as instant points, `points` in the header); the chunked encoder writes
  // them too.
  const stored = '22d21b9d9120582d09699df48ea4b39a76d61edf4df18894d4ec855b03a6201e';
  assert.is(sha256(encodeSnapshot(built)), stored);
  assert.is(sha256(Buffer.concat([...encodeSnapshotChunks(built, 7)])), stored);
  const lastIdEmpty = new GenesisAccumulator();
  lastIdEmpty.add('x', 1, 0, 'rome', []);
  lastIdEmpty.add('', 2, 0, 'rome', ['x']);
  assert.equal(decodeSnapshot(Buffer.concat([...encodeSnapshotChunks(lastIdEmpty.build(), 3)])).ids, ['x', '']);
  assert.equal(decodeSnapshot(encodeSnapshot(lastIdEmpty.build())).ids, ['x', '']);
});
snapshot('a snapshot without `points` in its header names the times beyond ±2^53 s it holds rounded', () => {
  const accumulator = new GenesisAccumulator();
  accumulator.add('near', 1, 0, 'rome', []);
  accumulator.add('far', 2 ** 54, 0, 'rome', []);
  accumulator.add('far before', -(2 ** 54), 3, 'rome', []);
  const current = encodeSnapshot(accumulator.build());
  assert.is(decodeSnapshot(current).rounded, undefined);
  const older = Buffer.from(current);
  older.write('"points":null', older.indexOf('"points":true'));
  assert.equal(decodeSnapshot(older).rounded, [1, 2]);
});
snapshot('summaries round-trip', () => {
  const info = { lsn: 4, happens: true, timeText: '\x07\xff\x80'.repeat(4), words: ['sao', 'paulo'], supersedes: 'evt_a' };
  assert.equal(decodeSummary(4, encodeSummary(info)), info);
  const plain = { lsn: 0, happens: false, timeText: '\0'.repeat(12), words: [] };
  assert.equal(decodeSummary(0, encodeSummary(plain)), plain);
  assert.is(Buffer.from(encodeSummary(info)).subarray(1, 13).toString('hex'), '07ff80'.repeat(4), 'the time key is stored as its 12 bytes');
});
snapshot('versions at one place share one frozen words array; their time keys order as the instants do', () => {
  const at = (time: string, location: string) =>
    summarise({ event_id: 'e', timeline_id: 'primary', description: 'd', time, location, causes: [], status: 'original' }, 1);
  const [early, late, elsewhere] = [at('1700-01-01T00:00:00Z', 'São Paulo, Brazil'), at('1700-01-01T00:00:00.5Z', 'São Paulo, Brazil'), at('-0500-01-01T00:00:00Z', 'Delft')];
  assert.equal(early.words, ['sao', 'paulo', 'brazil']);
  assert.ok(early.words === late.words, 'one array for the place');
  assert.ok(Object.isFrozen(early.words));
  assert.equal(decodeSummary(1, encodeSummary(early)).words, early.words);
  assert.ok(decodeSummary(1, encodeSummary(early)).words === decodeSummary(2, encodeSummary(late)).words, 'decoded summaries share too');
  assert.is(early.timeText, Buffer.from(encodeInstantKey(parseInstant('1700-01-01T00:00:00Z'))).toString('latin1'));
  assert.ok(elsewhere.timeText < early.timeText && early.timeText < late.timeText);
});
snapshot.run();

const memory = suite('in-memory ordering');
memory('the local commit log continues after the highest LSN found at open, taking each LSN only when asked', async () => {
  const written: unknown[] = [];
  const log = new LocalCommitLog({ write: async (ops: unknown[]) => void written.push(ops) } as unknown as OrderedKeyValueStore);
  await log.start(10);
  assert.is(await log.commit(async (lsn) => ({ ops: [], note: new Uint8Array(), result: lsn() })), 11);
  assert.is(await log.commit(async () => ({ ops: [], note: new Uint8Array(), result: 'no LSN taken' })), 'no LSN taken');
  assert.is(await log.commit(async (lsn) => ({ ops: [], note: new Uint8Array(), result: lsn() + lsn() })), 24);
  assert.is(written.length, 3);
  assert.equal(await log.since(), []);
  assert.is(await log.loadHeld(), false);
});
memory('local commits that arrive while a synced write is in flight go together in the next one (group commit)', async () => {
  const writes: { ops: number; durable: boolean }[] = [];
  let failNext = false;
  const kv = {
    write: async (ops: unknown[], durable: boolean) => {
      writes.push({ ops: ops.length, durable });
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (failNext) throw new Error('disk full');
    },
  } as unknown as OrderedKeyValueStore;
  const log = new LocalCommitLog(kv);
  let key = 0;
  const commit = (n: number) =>
    log.commit(async (lsn) => ({ ops: Array.from({ length: n }, () => ({ type: 'del' as const, key: Uint8Array.of(key++) })), note: new Uint8Array(), result: lsn() }));
  const lsns = await Promise.all([commit(1), commit(2), commit(3), commit(4)]);
  assert.equal(lsns, [1, 2, 3, 4]);
  assert.equal(writes, [
    { ops: 1, durable: true },
    { ops: 9, durable: true },
  ], 'the first alone, the three that waited in one synced batch');
  failNext = true;
  const outcomes = await Promise.allSettled([commit(1), commit(1), commit(1)]);
  assert.equal(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected'], 'every commit of a failed batch fails');
});
memory('a group of local commits writes each key once, with the last op on it', async () => {
  const written: WriteOp[][] = [];
  const kv = {
    write: async (ops: WriteOp[]) => {
      written.push(ops);
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  } as unknown as OrderedKeyValueStore;
  const log = new LocalCommitLog(kv);
  const put = (key: number, value: number): WriteOp => ({ type: 'put', key: Uint8Array.of(9, key), value: Uint8Array.of(value) });
  const del = (key: number): WriteOp => ({ type: 'del', key: Uint8Array.of(9, key) });
  const commit = (ops: WriteOp[]) => log.commit(async () => ({ ops, note: new Uint8Array(), result: undefined }));
  await Promise.all([commit([put(1, 0)]), commit([put(1, 1), put(2, 1)]), commit([put(1, 2), del(2), put(3, 1)]), commit([put(3, 2), del(3), put(2, 3)])]);
  assert.is(written.length, 2);
  assert.equal(written[0], [put(1, 0)], 'the first commit alone');
  const byKey = new Map(written[1]!.map((op) => [op.key[1], op]));
  assert.is(written[1]!.length, 3, 'three keys, one op each');
  assert.equal([...byKey.entries()].sort(([a], [b]) => a! - b!), [
    [1, put(1, 2)],
    [2, put(2, 3)],
    [3, del(3)],
  ]);
});
memory('lastOpOnEachKey keeps the last op on each key, whatever its kind, and tells keys apart by every byte', () => {
  const put = (key: number[], value: number): WriteOp => ({ type: 'put', key: Uint8Array.from(key), value: Uint8Array.of(value) });
  const del = (key: number[]): WriteOp => ({ type: 'del', key: Uint8Array.from(key) });
  // A view into a larger buffer is the same key as a fresh array of its bytes.
  const shared = new Uint8Array([0, 7, 200, 0]).subarray(1, 3);
  assert.equal(lastOpOnEachKey([put([7, 200], 1), del([7, 200]), put([7, 200, 0], 2), { type: 'put', key: shared, value: Uint8Array.of(3) }, del([200, 7])]), [
    { type: 'put', key: shared, value: Uint8Array.of(3) },
    put([7, 200, 0], 2),
    del([200, 7]),
  ]);
  assert.equal(lastOpOnEachKey([]), []);
});
memory('a change note round-trips timelines, deletions and version summaries', () => {
  const info = decodeSummary(7, encodeSummary({ lsn: 7, happens: true, timeText: Buffer.from(encodeInstantKey(parseInstant('1700-01-01T00:00:00Z'))).toString('latin1'), words: ['delft'], supersedes: 'e0' }));
  const note = { deleted: [{ timeline_id: 'x', level: 4 }], versions: [{ level: 2, eventId: 'e1', info }] };
  const decoded = decodeNote(encodeNote(note));
  assert.equal(decoded.deleted, note.deleted);
  assert.equal(decoded.timelines, []);
  assert.equal(decoded.versions, [{ level: 2, eventId: 'e1', info }]);
});
memory('a fresh check never lets a caller settle for a run that began before it asked', async () => {
  let runs = 0;
  let release: () => void = () => undefined;
  const check = new FreshCheck(() => {
    runs += 1;
    return new Promise<void>((resolve) => (release = resolve));
  });
  const first = check.run();
  const second = check.run();
  const third = check.run();
  assert.is(second, third, 'callers arriving during a run share the next one');
  assert.is(runs, 1);
  release();
  await first;
  await Promise.resolve();
  await Promise.resolve();
  assert.is(runs, 2, 'the second run starts after the first ends');
  release();
  await second;
});
memory('version lists stay ordered and changedAfter finds later changes', () => {
  const index = new VersionIndex();
  const info = (lsn: number) => ({ lsn, happens: true, timeText: '\0'.repeat(12), words: [] });
  index.add(1, 'e', info(5));
  index.add(1, 'e', info(0));
  index.add(1, 'f', info(9));
  assert.equal(index.list(1, 'e')!.map((v) => v.lsn), [0, 5]);
  assert.ok(index.hasMarker(1, 'e'));
  assert.equal([...index.changedAfter(1, 5)], ['f']);
  assert.equal([...index.changedAfter(1, 4)].sort(), ['e', 'f']);
  const late = info(12);
  index.add(1, 'e', late);
  index.remove(1, 'e', late);
  assert.equal(index.list(1, 'e')!.map((v) => v.lsn), [0, 5]);
  assert.is(index.maxLsn(), 9);
});
memory("a genesis marker stays out of its level's search index; the versions above it go in and out", () => {
  const index = new VersionIndex();
  const info = (lsn: number) => ({ lsn, happens: true, timeText: '\0'.repeat(12), words: ['oslo', 'norway'] });
  index.add(1, 'e', info(0));
  assert.ok(index.hasMarker(1, 'e'));
  assert.is(index.current(1)!.count(), 0);
  assert.is(index.current(1)!.count('oslo'), 0);
  const change = info(7);
  index.add(1, 'e', change);
  assert.equal([...index.current(1)!.from('oslo', '')].map(([, id]) => id), ['e']);
  index.remove(1, 'e', change);
  assert.is(index.current(1)!.count(), 0, 'the marker is the newest again, and it is not indexed');
  assert.is(index.current(1)!.count('norway'), 0);
});
memory('the events made from an event are found on the chain, down the line, and a removed version takes its link along', () => {
  const index = new VersionIndex();
  const made = (lsn: number, supersedes: string) => ({ lsn, happens: true, timeText: '\0'.repeat(12), words: [], supersedes });
  const successors = (chain: number[], ...ids: string[]) => {
    const found = new Set(ids);
    index.addSuccessors(chain.map((level) => ({ level })), found);
    return [...found].sort();
  };
  const first = made(3, 'e');
  index.add(1, 'x', first);
  index.add(1, 'x', made(4, 'e'));
  index.add(1, 'y', made(5, 'e'));
  index.add(2, 'z', made(6, 'e'));
  index.add(2, 'w', made(7, 'x'));
  assert.equal(successors([1], 'e'), ['e', 'x', 'y']);
  assert.equal(successors([1, 2], 'e'), ['e', 'w', 'x', 'y', 'z'], 'and what was made from those');
  index.remove(1, 'x', first);
  assert.equal(successors([1], 'e'), ['e', 'x', 'y'], 'x has another version made from e');
  index.remove(1, 'y', index.list(1, 'y')![0]!);
  assert.equal(successors([1], 'e'), ['e', 'x']);
  index.remove(2, 'z', index.list(2, 'z')![0]!);
  assert.equal(successors([2], 'e'), ['e']);
});
memory('writer queues run tasks of one key in order, keys independently', async () => {
  const queues = new WriterQueues();
  const log: string[] = [];
  const slow = (label: string, ms: number) => async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    log.push(label);
    if (label === 'a2') throw new Error('boom');
    return label;
  };
  const results = await Promise.allSettled([queues.run('a', slow('a1', 30)), queues.run('a', slow('a2', 1)), queues.run('a', slow('a3', 1)), queues.run('b', slow('b1', 5))]);
  assert.equal(log, ['b1', 'a1', 'a2', 'a3']);
  assert.is(results[1]!.status, 'rejected');
  assert.is(results[2]!.status, 'fulfilled', 'a failure does not break the queue');
  await queues.drain();
});
memory('a version read while its level is forgotten or the cache cleared is answered, but not kept', async () => {
  let stored = 'before';
  let release = () => {};
  let reads = 0;
  const kv = {
    get: async () => {
      reads += 1;
      const value = encodeRecord({ event_id: 'e', description: stored });
      await new Promise<void>((resolve) => (release = resolve));
      return value;
    },
  } as unknown as OrderedKeyValueStore;
  const reader = new VersionReader(kv);
  const ref = { level: 3, eventId: 'e', lsn: 0 };
  for (const drop of [() => reader.forgetLevel(3), () => reader.clear()]) {
    reader.clear();
    const racing = reader.read([ref]);
    await new Promise((resolve) => setImmediate(resolve));
    drop();
    stored = 'after';
    release();
    assert.is((await racing)[0]?.description, 'before', 'the read answers what it read');
    const next = reader.read([ref]);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    assert.is((await next)[0]?.description, 'after', 'the next read goes to the store, not to a kept old record');
    stored = 'before';
  }
  assert.is(reads, 4);
  // Without a drop in between, a read is kept.
  reader.clear();
  const kept = reader.read([ref]);
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await kept;
  assert.is((await reader.read([ref]))[0]?.description, 'before');
  assert.is(reads, 5);
});

memory.run();
