/**
 * The TimelineStore conformance suite: everything a backend must do, written against the interface only.
 * A backend's test file calls `runConformanceSuite(name, factory)`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/domain/errors.ts';
import { BadCursorError } from '../../src/store/page-cursor.ts';
import { parseInstant } from '../../src/time/index.ts';
import type { AnchorRecord, EventRecord, GenesisEvent, TimelineStore } from '../../src/store/types.ts';
import { causesOfEvent, standingIds } from './graph-canonical.ts';

export interface StoreHarness {
  store: TimelineStore;
  /** Closes the store (and its database) and opens a new one on the same data. */
  reopen(): Promise<TimelineStore>;
  /** Bytes the backend occupies on disk (after its own compaction), for the freed-storage check. */
  storageBytes(): Promise<number>;
  dispose(): Promise<void>;
}

export type StoreFactory = () => Promise<StoreHarness>;

const at = (text: string) => parseInstant(text);

async function rejects(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ApiError, `expected an ApiError, got ${String(error)}`);
    const apiError = error as ApiError;
    assert.is(apiError.code, code, `code of "${apiError.message}"`);
    if (pattern) assert.match(apiError.message, pattern);
    return apiError;
  }
  assert.unreachable(`expected a ${code} error`);
  throw new Error('unreachable');
}

async function rejectsCursor(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, BadCursorError, `expected a BadCursorError, got ${String(error)}`);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable('expected the cursor to be refused');
}

async function addEvent(store: TimelineStore, timeline: string, time: string, location: string, causes: string[] = [], description = `at ${location}`) {
  return store.insertEvent(timeline, { description, time: at(time), location, causes }, 'tester');
}

async function allPages(store: TimelineStore, timeline: string, words: string[], pageSize: number, range: { start?: string; end?: string } = {}) {
  const events: EventRecord[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.search(timeline, {
      words,
      pageSize,
      ...(cursor && { cursor }),
      ...(range.start && { start: at(range.start) }),
      ...(range.end && { end: at(range.end) }),
    });
    assert.ok(page.events.length <= pageSize, 'page size respected');
    if (page.nextCursor) assert.is(page.events.length, pageSize, 'only the last page may be short');
    events.push(...page.events);
    cursor = page.nextCursor;
    pages += 1;
    assert.ok(pages < 10_000, 'pagination terminates');
  } while (cursor);
  return events;
}

const ids = (events: EventRecord[]) => events.map((event) => event.event_id);

function sortedByTimeThenId(events: EventRecord[]): boolean {
  for (let i = 1; i < events.length; i++) {
    const a = parseInstant(events[i - 1]!.time);
    const b = parseInstant(events[i]!.time);
    if (a.seconds > b.seconds || (a.seconds === b.seconds && a.nanos > b.nanos)) return false;
    if (a.seconds === b.seconds && a.nanos === b.nanos && Buffer.compare(Buffer.from(events[i - 1]!.event_id), Buffer.from(events[i]!.event_id)) >= 0) return false;
  }
  return true;
}

export function runConformanceSuite(name: string, factory: StoreFactory): void {
  const test = suite<{ harness: StoreHarness; store: TimelineStore }>(`${name} conformance`);
  test.before.each(async (context) => {
    context.harness = await factory();
    context.store = context.harness.store;
  });
  test.after.each(async (context) => {
    await context.harness.dispose();
  });

  test('primary exists from the first open, is empty and cannot be deleted', async ({ store }) => {
    const primary = await store.getTimeline('primary');
    assert.ok(primary);
    assert.is(primary.kind, 'primary');
    assert.is(primary.base_timeline_id, '');
    assert.is(primary.event_count, 0);
    assert.is(primary.revision, 0);
    assert.is(primary.stability, 'Unknown');
    assert.equal(ids((await store.search('primary', { words: [], pageSize: 10 })).events), []);
    await rejects(store.deleteTimeline('primary'), 'failed_precondition', /primary/);
    assert.equal((await store.listTimelines()).map((t) => t.timeline_id), ['primary']);
  });

  test('timelineOwner names the owner of live timelines only', async ({ store }) => {
    const mine = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'alice' });
    assert.is(await store.timelineOwner(mine.timeline_id), 'alice');
    assert.is(await store.timelineOwner('primary'), (await store.getTimeline('primary'))!.owner);
    assert.is(await store.timelineOwner('nope'), undefined);
    await store.deleteTimeline(mine.timeline_id);
    assert.is(await store.timelineOwner(mine.timeline_id), undefined);
  });

  test('insert, get and search with case- and accent-insensitive whole words', async ({ store }) => {
    const sao = await addEvent(store, 'primary', '2000-01-01T00:00:00Z', 'São Paulo, Brasil');
    const paris = await addEvent(store, 'primary', '2000-01-02T00:00:00Z', 'Paris, France');
    const texas = await addEvent(store, 'primary', '2000-01-03T00:00:00Z', 'Paris, Texas');
    const precise = await addEvent(store, 'primary', '-000044-03-15T12:00:00.123456789Z', 'Rome, Italia');
    assert.equal(await store.getEvent('primary', sao.event_id), sao);
    assert.is(sao.status, 'original');
    assert.is(sao.timeline_id, 'primary');
    assert.is(precise.time, '-000044-03-15T12:00:00.123456789Z');
    assert.is(await store.getEvent('primary', 'evt_missing'), undefined);
    const find = async (...words: string[]) => ids((await store.search('primary', { words, pageSize: 50 })).events);
    assert.equal(await find('sao'), [sao.event_id]);
    assert.equal(await find('SÃO'), [sao.event_id]);
    assert.equal(await find('paulo'), [sao.event_id]);
    assert.equal(await find('paris'), [paris.event_id, texas.event_id]);
    assert.equal(await find('france'), [paris.event_id]);
    assert.equal(await find('paris', 'texas'), [texas.event_id]);
    assert.equal(await find('par'), [], 'whole words only');
    assert.equal(await find(), [precise.event_id, sao.event_id, paris.event_id, texas.event_id], 'time order, any year');
    const ranged = await store.search('primary', { words: ['paris'], start: at('2000-01-02T00:00:00Z'), end: at('2000-01-02T00:00:00Z'), pageSize: 10 });
    assert.equal(ids(ranged.events), [paris.event_id], 'both bounds inclusive');
    assert.is((await store.getTimeline('primary'))!.event_count, 4);
    assert.is((await store.getTimeline('primary'))!.revision, 4);
  });

  test('manipulate creates a superseding event; reschedule moves it, the original stays in history', async ({ store }) => {
    const cause = await addEvent(store, 'primary', '1900-01-01T00:00:00Z', 'Vienna');
    const event = await addEvent(store, 'primary', '1914-06-28T10:45:00Z', 'Sarajevo', [cause.event_id]);
    const { original, created } = await store.manipulate(
      'primary',
      event.event_id,
      { description: 'The car takes another street', changes: [{ action: 'reschedule', time: at('1914-06-29T00:00:00Z') }, { action: 'reschedule', time: at('1914-07-01T09:00:00.5Z') }] },
      'alice',
    );
    assert.is(created.supersedes, event.event_id);
    assert.is(created.status, 'manipulated');
    assert.is(created.time, '1914-07-01T09:00:00.5Z', 'the last reschedule wins, at the precision sent');
    assert.is(created.location, 'Sarajevo');
    assert.equal(created.causes, [cause.event_id]);
    assert.equal(created.changes, [
      { action: 'reschedule', time: '1914-06-29T00:00:00Z' },
      { action: 'reschedule', time: '1914-07-01T09:00:00.5Z' },
    ]);
    assert.is(created.created_by, 'alice');
    assert.match(created.event_id, /^evt_[a-z2-7]{20}$/);
    assert.is(original.superseded_by, created.event_id);
    assert.equal(await store.getEvent('primary', event.event_id), original);
    assert.equal(await store.getEvent('primary', created.event_id), created);
    const june = await store.search('primary', { words: ['sarajevo'], start: at('1914-06-28T00:00:00Z'), end: at('1914-06-28T23:59:59Z'), pageSize: 10 });
    assert.equal(ids(june.events), [], 'the superseded original no longer happens');
    const july = await store.search('primary', { words: ['sarajevo'], start: at('1914-07-01T00:00:00Z'), pageSize: 10 });
    assert.equal(ids(july.events), [created.event_id]);
    assert.is((await store.getTimeline('primary'))!.event_count, 2);
  });

  test('prevent/cancel makes the new event cancelled; other actions are recorded only', async ({ store }) => {
    const a = await addEvent(store, 'primary', '1800-01-01T00:00:00Z', 'Berlin');
    const b = await addEvent(store, 'primary', '1801-01-01T00:00:00Z', 'Berlin');
    const prevented = await store.manipulate('primary', a.event_id, { description: 'never', changes: [{ action: 'observe', time: at('1799-01-01T00:00:00Z') }, { action: 'prevent', time: at('1799-06-01T00:00:00Z') }] }, 'u');
    assert.is(prevented.created.status, 'cancelled');
    assert.is(prevented.created.time, a.time, 'no reschedule: same time');
    const noted = await store.manipulate('primary', b.event_id, { description: 'noted', changes: [{ action: 'whisper', time: at('1800-06-01T00:00:00Z') }] }, 'u');
    assert.is(noted.created.status, 'manipulated');
    assert.is(noted.created.time, b.time);
    assert.equal(ids((await store.search('primary', { words: ['berlin'], pageSize: 10 })).events), [noted.created.event_id]);
    assert.is((await store.getTimeline('primary'))!.event_count, 1);
    await rejects(
      store.manipulate('primary', prevented.created.event_id, { description: 'again', changes: [] }, 'u'),
      'failed_precondition',
      /cancelled/,
    );
  });

  test('revert restores the original and rejects non-manipulations and repeats', async ({ store }) => {
    const event = await addEvent(store, 'primary', '1969-07-20T20:17:40Z', 'Mare Tranquillitatis, Moon');
    const { created } = await store.manipulate('primary', event.event_id, { description: 'aborted landing', changes: [{ action: 'cancel', time: at('1969-07-20T20:00:00Z') }] }, 'u');
    assert.is(created.created_by, 'u', 'a manipulation records who made it');
    assert.type(created.created_at, 'string');
    await rejects(store.revert('primary', event.event_id, 'u'), 'failed_precondition', /not a manipulation/);
    await rejects(store.revert('primary', 'evt_nope', 'u'), 'not_found', /evt_nope/);
    const { reverted, restored } = await store.revert('primary', created.event_id, 'reviewer');
    assert.is(reverted.event_id, created.event_id);
    assert.is(reverted.status, 'reverted');
    assert.is(reverted.created_by, 'u', 'still says who made the manipulation');
    assert.is(reverted.reverted_by, 'reviewer', 'and who reverted it');
    assert.type(reverted.reverted_at, 'string');
    assert.equal(await store.getEvent('primary', created.event_id), reverted, 'as stored');
    assert.is(restored.event_id, event.event_id);
    assert.is(restored.status, 'original');
    assert.is(restored.superseded_by, undefined);
    assert.equal(await store.getEvent('primary', event.event_id), restored);
    assert.equal(ids((await store.search('primary', { words: ['moon'], pageSize: 10 })).events), [event.event_id]);
    await rejects(store.revert('primary', created.event_id, 'u'), 'failed_precondition', /already reverted/);
    await rejects(store.manipulate('primary', created.event_id, { description: 'x', changes: [] }, 'u'), 'failed_precondition', /reverted/);
    const again = await store.manipulate('primary', event.event_id, { description: 'second try', changes: [] }, 'u');
    assert.is(again.original.superseded_by, again.created.event_id, 'a restored event can be manipulated again');
    assert.is((await store.getTimeline('primary'))!.event_count, 1);
  });

  test('manipulating a superseded event is a conflict naming the successor', async ({ store }) => {
    const event = await addEvent(store, 'primary', '1500-01-01T00:00:00Z', 'Lisbon');
    const first = await store.manipulate('primary', event.event_id, { description: 'one', changes: [] }, 'u');
    const error = await rejects(store.manipulate('primary', event.event_id, { description: 'two', changes: [] }, 'u'), 'aborted');
    assert.is(error.message, `event "${event.event_id}" was already superseded by "${first.created.event_id}" on timeline "primary"`);
    await rejects(store.manipulate('primary', 'evt_ghost', { description: 'x', changes: [] }, 'u'), 'not_found', /evt_ghost/);
    await rejects(store.manipulate('nowhere', event.event_id, { description: 'x', changes: [] }, 'u'), 'not_found', /nowhere/);
    await rejects(
      store.manipulate('primary', first.created.event_id, { description: 'x', changes: [], new_event_id: event.event_id }, 'u'),
      'already_exists',
    );
  });

  test('concurrent manipulations of one event: exactly one wins', async ({ store }) => {
    const event = await addEvent(store, 'primary', '1600-01-01T00:00:00Z', 'London');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => store.manipulate('primary', event.event_id, { description: `attempt ${i}`, changes: [] }, `u${i}`)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.is(won.length, 1);
    assert.is(lost.length, 9);
    const winner = (won[0] as PromiseFulfilledResult<{ created: EventRecord }>).value.created.event_id;
    for (const loss of lost) {
      assert.is((loss.reason as ApiError).code, 'aborted');
      assert.ok((loss.reason as ApiError).message.includes(winner));
    }
    assert.is((await store.getEvent('primary', event.event_id))!.superseded_by, winner);
    assert.is((await store.getTimeline('primary'))!.revision, 2);
  });

  test('precheck sees the proposal and can abort with nothing written', async ({ store }) => {
    const event = await addEvent(store, 'primary', '1700-01-01T00:00:00Z', 'Madrid');
    let seen: unknown;
    let checks = 0;
    await rejects(
      store.manipulate('primary', event.event_id, { description: 'risky', changes: [] }, 'u', (proposal) => {
        seen = proposal;
        checks++;
        throw new ApiError('failed_precondition', 'paradox');
      }),
      'failed_precondition',
      /paradox/,
    );
    const proposal = seen as { timeline_id: string; original: EventRecord; created: EventRecord };
    assert.is(checks, 1, 'checked once: nothing changed between the check and the turn');
    assert.is(proposal.timeline_id, 'primary');
    assert.is(proposal.original.superseded_by, proposal.created.event_id);
    assert.equal(await store.getEvent('primary', event.event_id), event, 'nothing written');
    assert.is(await store.getEvent('primary', proposal.created.event_id), undefined);
    assert.is((await store.getTimeline('primary'))!.revision, 1);
    const ok = await store.manipulate('primary', event.event_id, { description: 'safe', changes: [] }, 'u', async () => {});
    assert.is(ok.created.description, 'safe');
  });

  test('branches are isolated from their base and their siblings', async ({ store }) => {
    const event = await addEvent(store, 'primary', '1815-06-18T11:00:00Z', 'Waterloo, Belgium');
    const left = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'left', variation: '', owner: 'alice' });
    const right = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: 'right', variation: 'rain', owner: 'bob' });
    assert.is(left.kind, 'alternate');
    assert.is(right.kind, 'parallel');
    assert.is(right.variation, 'rain');
    assert.is(left.owner, 'alice');
    assert.is(left.base_timeline_id, 'primary');
    assert.is(left.event_count, 1);
    const onLeft = await store.manipulate(left.timeline_id, event.event_id, { description: 'Napoleon wins', changes: [] }, 'alice');
    assert.is(onLeft.created.timeline_id, left.timeline_id);
    const extra = await addEvent(store, right.timeline_id, '1815-06-19T00:00:00Z', 'Brussels, Belgium');
    assert.equal(await store.getEvent('primary', event.event_id), event, 'base untouched');
    assert.equal(await store.getEvent(right.timeline_id, event.event_id), event, 'sibling untouched');
    assert.is(await store.getEvent('primary', onLeft.created.event_id), undefined);
    assert.is(await store.getEvent(right.timeline_id, onLeft.created.event_id), undefined);
    assert.is(await store.getEvent('primary', extra.event_id), undefined);
    assert.is(await store.getEvent(left.timeline_id, extra.event_id), undefined);
    const belgium = async (timeline: string) => ids((await store.search(timeline, { words: ['belgium'], pageSize: 10 })).events);
    assert.equal(await belgium('primary'), [event.event_id]);
    assert.equal(await belgium(left.timeline_id), [onLeft.created.event_id]);
    assert.equal(await belgium(right.timeline_id), [event.event_id, extra.event_id]);
    assert.equal((await store.getEvent(left.timeline_id, event.event_id))!.timeline_id, left.timeline_id);
    assert.equal((await store.getEvent(right.timeline_id, event.event_id))!.timeline_id, 'primary', 'read falls through to the base');
    assert.is((await store.getTimeline(left.timeline_id))!.event_count, 1);
    assert.is((await store.getTimeline(right.timeline_id))!.event_count, 2);
    assert.is((await store.getTimeline('primary'))!.event_count, 1);
    assert.is((await store.getTimeline(left.timeline_id))!.revision, 1);
    assert.is((await store.getTimeline('primary'))!.revision, 1);
  });

  test("what a parallel hides of its base's later changes, its own parallels never see, even after reverting", async ({ store }) => {
    const event = await addEvent(store, 'primary', '1700-01-01T00:00:00Z', 'Delft');
    const first = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const own = await store.manipulate(first.timeline_id, event.event_id, { description: 'first changed it', changes: [] }, 'u');
    // Later, primary changes the same event twice: neither change is on `first`, which had changed it itself.
    const later = await store.manipulate('primary', event.event_id, { description: 'primary changed it', changes: [] }, 'u');
    const latest = await store.manipulate('primary', later.created.event_id, { description: 'and again', changes: [] }, 'u');
    const second = await store.createTimeline({ kind: 'parallel', base_timeline_id: first.timeline_id, description: '', variation: 'w', owner: 'u' });
    // `second` reverts the manipulation it inherited: it now holds its own copy of the original event.
    await store.revert(second.timeline_id, own.created.event_id, 'u');
    for (const timeline of [first.timeline_id, second.timeline_id]) {
      assert.is(await store.getEvent(timeline, later.created.event_id), undefined, `primary's change is not on ${timeline}`);
      assert.is(await store.getEvent(timeline, latest.created.event_id), undefined, `nor its successor on ${timeline}`);
    }
    assert.equal(ids((await store.search(second.timeline_id, { words: ['delft'], pageSize: 10 })).events), [event.event_id]);
    assert.equal(ids((await store.search(first.timeline_id, { words: ['delft'], pageSize: 10 })).events), [own.created.event_id]);
    assert.equal(ids((await store.search('primary', { words: ['delft'], pageSize: 10 })).events), [latest.created.event_id]);
  });

  test('an alternate is frozen at its creation; a parallel sees later base changes except its own', async ({ store }) => {
    const a = await addEvent(store, 'primary', '1000-01-01T00:00:00Z', 'Hastings');
    const b = await addEvent(store, 'primary', '1001-01-01T00:00:00Z', 'Hastings');
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const par = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const own = await store.manipulate(par.timeline_id, a.event_id, { description: 'parallel change', changes: [] }, 'u');
    const later = await addEvent(store, 'primary', '1002-01-01T00:00:00Z', 'Hastings');
    const baseA = await store.manipulate('primary', a.event_id, { description: 'base change of a', changes: [] }, 'u');
    const baseB = await store.manipulate('primary', b.event_id, { description: 'base change of b', changes: [] }, 'u');
    const hastings = async (timeline: string) => ids(await allPages(store, timeline, ['hastings'], 2));

    assert.equal(await hastings(alt.timeline_id), [a.event_id, b.event_id], 'alternate: as the base stood at creation');
    assert.equal(await store.getEvent(alt.timeline_id, a.event_id), a);
    assert.is(await store.getEvent(alt.timeline_id, later.event_id), undefined);
    assert.is(await store.getEvent(alt.timeline_id, baseA.created.event_id), undefined);
    assert.is((await store.getTimeline(alt.timeline_id))!.event_count, 2);

    assert.equal(await hastings(par.timeline_id), [own.created.event_id, baseB.created.event_id, later.event_id], 'parallel: live base, own changes win');
    assert.is((await store.getEvent(par.timeline_id, a.event_id))!.superseded_by, own.created.event_id, 'its own change wins');
    assert.is(await store.getEvent(par.timeline_id, baseA.created.event_id), undefined, "the base's successor of an event it changed is not on it");
    assert.is((await store.getEvent(par.timeline_id, b.event_id))!.superseded_by, baseB.created.event_id, 'later base change shows');
    assert.is((await store.getTimeline(par.timeline_id))!.event_count, 3);
    await rejects(
      store.manipulate(par.timeline_id, baseA.created.event_id, { description: 'x', changes: [] }, 'u'),
      'not_found',
    );
    const graph = (await store.readCausalGraph(par.timeline_id)).graph;
    assert.equal([...graph.eventIds].sort(), [own.created.event_id, baseB.created.event_id, later.event_id].sort());
  });

  test("a branch reverts its base's manipulation for itself only", async ({ store }) => {
    const event = await addEvent(store, 'primary', '1789-07-14T15:00:00Z', 'Paris', [], 'Bastille');
    const { created } = await store.manipulate('primary', event.event_id, { description: 'stormed a day late', changes: [{ action: 'reschedule', time: at('1789-07-15T15:00:00Z') }] }, 'u');
    const par = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const { reverted, restored } = await store.revert(par.timeline_id, created.event_id, 'u');
    assert.is(reverted.timeline_id, par.timeline_id);
    assert.is(restored.event_id, event.event_id);
    assert.equal(ids((await store.search(par.timeline_id, { words: ['paris'], pageSize: 5 })).events), [event.event_id]);
    assert.equal(ids((await store.search('primary', { words: ['paris'], pageSize: 5 })).events), [created.event_id], 'base keeps its manipulation');
    assert.is((await store.getEvent('primary', created.event_id))!.status, 'manipulated');
    // The branch may now change the restored event its own way; the base's successor stays off the branch.
    const own = await store.manipulate(par.timeline_id, event.event_id, { description: 'never stormed', changes: [{ action: 'prevent', time: at('1789-07-13T00:00:00Z') }] }, 'u');
    assert.is(own.created.status, 'cancelled');
    assert.equal(ids((await store.search(par.timeline_id, { words: ['paris'], pageSize: 5 })).events), []);
    assert.is((await store.getTimeline(par.timeline_id))!.event_count, 0);
    assert.equal([...(await store.readCausalGraph(par.timeline_id)).graph.eventIds], [own.created.event_id]);
  });

  test("an alternate's causal graph and counts stay as of its fork", async ({ store }) => {
    const cause = await addEvent(store, 'primary', '1600-01-01T00:00:00Z', 'Delft');
    const effect = await addEvent(store, 'primary', '1601-01-01T00:00:00Z', 'Delft', [cause.event_id]);
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const before = await store.readCausalGraph(alt.timeline_id);
    await store.manipulate('primary', cause.event_id, { description: 'later', changes: [{ action: 'prevent', time: at('1500-01-01T00:00:00Z') }] }, 'u');
    await addEvent(store, 'primary', '1602-01-01T00:00:00Z', 'Delft', [effect.event_id]);
    const after = await store.readCausalGraph(alt.timeline_id);
    assert.equal(after.graph.eventIds, before.graph.eventIds);
    assert.equal([...after.graph.state], [0, 0]);
    const i = after.graph.eventIds.indexOf(effect.event_id);
    assert.equal([...after.graph.causeTargets.slice(after.graph.causeOffsets[i]!, after.graph.causeOffsets[i + 1]!)], [after.graph.eventIds.indexOf(cause.event_id)]);
    assert.is((await store.getTimeline(alt.timeline_id))!.event_count, 2);
    assert.is((await store.getTimeline('primary'))!.event_count, 2);
    assert.is((await store.readCausalGraph('primary')).graph.eventIds.length, 3);
  });

  test('a five-deep chain mixing kinds resolves every level', async ({ store }) => {
    const root = await addEvent(store, 'primary', '0001-01-01T00:00:00Z', 'Athens');
    const chain = ['primary'];
    const kinds = ['alternate', 'parallel', 'alternate', 'parallel', 'parallel'] as const;
    const own: Record<string, EventRecord> = {};
    for (const kind of kinds) {
      const timeline = await store.createTimeline({ kind, base_timeline_id: chain[chain.length - 1]!, description: kind, variation: kind === 'parallel' ? 'v' : '', owner: 'u' });
      chain.push(timeline.timeline_id);
      own[timeline.timeline_id] = await addEvent(store, timeline.timeline_id, `000${chain.length}-01-01T00:00:00Z`, 'Athens');
    }
    const leaf = chain[chain.length - 1]!;
    // Written after the whole chain exists: visible below only through parallel links not cut by an alternate.
    const late = await addEvent(store, chain[3]!, '0009-01-01T00:00:00Z', 'Athens');
    const changed = await store.manipulate(chain[2]!, root.event_id, { description: 'changed on level 2', changes: [] }, 'u');
    const leafIds = ids(await allPages(store, leaf, ['athens'], 3));
    // leaf(par) → 4(par) → 3(alt, frozen at creation: sees 2 as it stood then) → ...
    assert.equal(leafIds, [root.event_id, ...chain.slice(1).map((id) => own[id]!.event_id), late.event_id]);
    assert.equal(await store.getEvent(leaf, root.event_id), root, 'level 3 froze level 2 before the change');
    assert.is((await store.getEvent(chain[2]!, root.event_id))!.superseded_by, changed.created.event_id);
    assert.is((await store.getTimeline(leaf))!.event_count, 7);
    assert.is((await store.getTimeline(chain[1]!))!.event_count, 2);
    for (let depth = 1; depth < chain.length; depth++) {
      assert.equal(await store.getEvent(chain[depth]!, own[chain[depth]!]!.event_id), own[chain[depth]!], `own event on level ${depth}`);
      assert.is(await store.getEvent(chain[depth - 1]!, own[chain[depth]!]!.event_id), undefined, `not on its base (level ${depth})`);
    }
    const graph = (await store.readCausalGraph(leaf)).graph;
    assert.is(graph.eventIds.length, 7);
  });

  test('pagination is stable: no duplicates, no gaps, ties ordered by id, cursor bound to its query', async ({ store }) => {
    const made: EventRecord[] = [];
    for (let i = 0; i < 40; i++) made.push(await addEvent(store, 'primary', `2020-01-0${1 + (i % 5)}T00:00:00Z`, i % 2 ? 'Oslo, Norway' : 'Bergen, Norway'));
    const par = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const moved = await store.manipulate(par.timeline_id, made[3]!.event_id, { description: 'moved', changes: [{ action: 'reschedule', time: at('2020-01-03T12:00:00Z') }] }, 'u');
    await store.manipulate(par.timeline_id, made[4]!.event_id, { description: 'gone', changes: [{ action: 'prevent', time: at('2019-12-31T00:00:00Z') }] }, 'u');
    for (const [timeline, expected] of [
      ['primary', made.map((e) => e.event_id)],
      [par.timeline_id, [...made.filter((_, i) => i !== 3 && i !== 4).map((e) => e.event_id), moved.created.event_id]],
    ] as const) {
      const full = await allPages(store, timeline, ['norway'], 1000);
      assert.equal([...ids(full)].sort(), [...expected].sort(), `all events once on ${timeline}`);
      assert.ok(sortedByTimeThenId(full), 'ordered by (time, id)');
      for (const size of [1, 3, 7, 39]) assert.equal(ids(await allPages(store, timeline, ['norway'], size)), ids(full), `page size ${size}`);
      const ranged = await allPages(store, timeline, [], 4, { start: '2020-01-02T00:00:00Z', end: '2020-01-03T12:00:00Z' });
      assert.equal(ids(ranged), ids(full.filter((e) => e.time >= '2020-01-02' && e.time <= '2020-01-03T12:00:00Z')));
    }
    const first = await store.search('primary', { words: ['norway'], pageSize: 5 });
    assert.ok(first.nextCursor);
    await rejectsCursor(store.search('primary', { words: ['oslo'], pageSize: 5, cursor: first.nextCursor! }), /^belongs to a different query/);
    await rejectsCursor(store.search(par.timeline_id, { words: ['norway'], pageSize: 5, cursor: first.nextCursor! }), /^belongs to a different query/);
    await rejectsCursor(store.search('primary', { words: ['norway'], pageSize: 5, cursor: 'not a token!' }), /^not a page token of this service/);
    await rejectsCursor(store.search('primary', { words: ['norway'], pageSize: 5, cursor: 'AAAA' }), /^not a page token of this service/);
    const second = await store.search('primary', { words: ['norway'], pageSize: 5, cursor: first.nextCursor! });
    assert.equal(ids(second.events), ids(made.slice().sort((a, b) => (a.time === b.time ? (a.event_id < b.event_id ? -1 : 1) : a.time < b.time ? -1 : 1))).slice(5, 10));
  });

  test('a page continues correctly after the data changed between pages', async ({ store }) => {
    const made: EventRecord[] = [];
    for (let i = 0; i < 10; i++) made.push(await addEvent(store, 'primary', `2021-01-${String(10 + i)}T00:00:00Z`, 'Turku'));
    const first = await store.search('primary', { words: ['turku'], pageSize: 4 });
    await addEvent(store, 'primary', '2021-01-01T00:00:00Z', 'Turku');
    const late = await addEvent(store, 'primary', '2021-02-01T00:00:00Z', 'Turku');
    const rest = await allPages(store, 'primary', ['turku'], 4);
    const second = await store.search('primary', { words: ['turku'], pageSize: 100, cursor: first.nextCursor! });
    assert.equal(ids(second.events), [...ids(made.slice(4)), late.event_id]);
    assert.is(rest.length, 12);
  });

  test('delete: refused for primary and for timelines with branches; a leaf goes with all its data', async ({ store, harness }) => {
    const base = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const child = await store.createTimeline({ kind: 'alternate', base_timeline_id: base.timeline_id, description: '', variation: '', owner: 'u' });
    await rejects(store.deleteTimeline(base.timeline_id), 'failed_precondition', new RegExp(child.timeline_id));
    await rejects(store.deleteTimeline('nope'), 'not_found');
    const events = Array.from({ length: 30_000 }, (_, i): GenesisEvent => ({
      event_id: `bulk_${i}`,
      description: `a fairly long description that takes some room on disk, number ${i} ${'x'.repeat(100)}`,
      time: at(`1950-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`),
      location: `Place ${i % 97}, Somewhere`,
      causes: i > 0 ? [`bulk_${i - 1}`] : [],
    }));
    const before = await harness.storageBytes();
    await store.bulkLoad(child.timeline_id, events);
    await store.putAnchor({ anchor_id: 'anc_child', timeline_id: child.timeline_id, timestamp: '1950-01-01T00:00:00Z' });
    const loaded = await harness.storageBytes();
    assert.ok(loaded > before + 1_000_000, `bulk data takes room (${before} → ${loaded})`);
    assert.is((await store.getTimeline(child.timeline_id))!.event_count, 30_000);
    await store.deleteTimeline(child.timeline_id);
    assert.is(await store.getTimeline(child.timeline_id), undefined);
    assert.is(await store.getAnchor('anc_child'), undefined);
    await rejects(store.getEvent(child.timeline_id, 'bulk_1'), 'not_found');
    // The space returns in the background, soon after the answer (LevelDB compacts the freed ranges then).
    let after = await harness.storageBytes();
    for (const givesUpAt = Date.now() + 20_000; after >= before + (loaded - before) / 4 && Date.now() < givesUpAt; after = await harness.storageBytes()) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(after < before + (loaded - before) / 4, `storage freed (${before} → ${loaded} → ${after})`);
    await store.deleteTimeline(base.timeline_id);
    assert.equal((await store.listTimelines()).map((t) => t.timeline_id), ['primary']);
    await rejects(store.createTimeline({ kind: 'parallel', base_timeline_id: base.timeline_id, description: '', variation: '', owner: 'u' }), 'not_found');
  });

  test('anchors are stored, listed per timeline and deleted', async ({ store }) => {
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const anchor = { anchor_id: 'anc_1', timeline_id: 'primary', timestamp: '2024-01-01T00:00:00.000001Z', accuracy: 'microsecond', environment: { temperature: '20 °C' } };
    assert.equal(await store.putAnchor(anchor), anchor);
    await store.putAnchor({ anchor_id: 'anc_2', timeline_id: alt.timeline_id, timestamp: '2024-01-02T00:00:00Z' });
    assert.equal(await store.getAnchor('anc_1'), anchor);
    assert.equal((await store.listAnchors('primary')).map((a) => a.anchor_id), ['anc_1']);
    assert.equal((await store.listAnchors(alt.timeline_id)).map((a) => a.anchor_id), ['anc_2']);
    await store.putAnchor({ ...anchor, environment: { temperature: '25 °C' } });
    assert.equal((await store.getAnchor('anc_1'))!.environment, { temperature: '25 °C' });
    assert.is(await store.deleteAnchor('anc_1'), true);
    assert.is(await store.deleteAnchor('anc_1'), false);
    assert.is(await store.getAnchor('anc_1'), undefined);
    await rejects(store.putAnchor({ anchor_id: 'anc_3', timeline_id: 'nowhere', timestamp: '2024-01-01T00:00:00Z' }), 'not_found');
  });

  test('an anchor whose timestamp is not one is refused before it is written, and the anchors read as before', async ({ store }) => {
    await store.putAnchor({ anchor_id: 'anc_ok', timeline_id: 'primary', timestamp: '2024-01-01T00:00:00Z' });
    assert.equal((await store.anchorPins('primary')).map((pin) => pin.anchorId), ['anc_ok'], 'pins held in memory');
    let refused: unknown;
    await store.putAnchor({ anchor_id: 'anc_bad', timeline_id: 'primary', timestamp: '+1000000000-01-01T00:00:00Z' }).catch((error: unknown) => (refused = error));
    assert.instance(refused, Error);
    assert.is(await store.getAnchor('anc_bad'), undefined);
    assert.equal((await store.anchorPins('primary')).map((pin) => pin.anchorId), ['anc_ok']);
    assert.equal((await store.listAnchors('primary')).map((anchor) => anchor.anchor_id), ['anc_ok']);
  });

  test('anchor lists stay current and in id order through writes, moves and deletes', async ({ store }) => {
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const anchorOn = (anchorId: string, timelineId: string, temperature = '20 °C') => ({ anchor_id: anchorId, timeline_id: timelineId, timestamp: '2024-01-01T00:00:00Z', environment: { temperature } });
    const ids = async (timelineId: string) => (await store.listAnchors(timelineId)).map((a) => a.anchor_id);
    await store.putAnchor(anchorOn('anc_m', 'primary'));
    assert.equal(await ids('primary'), ['anc_m']);
    await store.putAnchor(anchorOn('anc_z', 'primary'));
    await store.putAnchor(anchorOn('anc_a', 'primary'));
    assert.equal(await ids('primary'), ['anc_a', 'anc_m', 'anc_z']);
    await store.putAnchor(anchorOn('anc_m', 'primary', '30 °C'));
    assert.equal((await store.listAnchors('primary')).map((a) => a.environment), [{ temperature: '20 °C' }, { temperature: '30 °C' }, { temperature: '20 °C' }]);
    assert.equal(await ids(alt.timeline_id), []);
    await store.putAnchor(anchorOn('anc_m', alt.timeline_id));
    assert.equal(await ids('primary'), ['anc_a', 'anc_z']);
    assert.equal(await ids(alt.timeline_id), ['anc_m']);
    assert.is(await store.deleteAnchor('anc_a'), true);
    assert.equal(await ids('primary'), ['anc_z']);
    const listed = await store.listAnchors('primary');
    assert.ok(Object.isFrozen(listed), 'a list handed out is shared, so frozen');
    assert.throws(() => (listed as AnchorRecord[]).pop());
    assert.is(await store.listAnchors('primary'), listed, 'the same array while no anchor changes');
    await store.putAnchor(anchorOn('anc_b', 'primary'));
    const after = await store.listAnchors('primary');
    assert.is.not(after, listed, 'a change hands out a new array');
    assert.equal(listed.map((a) => a.anchor_id), ['anc_z'], 'and leaves the one handed out before as it was');
    assert.equal(after.map((a) => a.anchor_id), ['anc_b', 'anc_z']);
    await store.deleteTimeline(alt.timeline_id);
    assert.is(await store.getAnchor('anc_m'), undefined);
  });

  test('countAnchors counts the anchors listAnchors lists, through puts and deletes', async ({ store }) => {
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const anchorOn = (anchorId: string, timelineId: string) => ({ anchor_id: anchorId, timeline_id: timelineId, timestamp: '2024-01-01T00:00:00Z' });
    await store.putAnchor(anchorOn('anc_c0', 'primary'));
    assert.is(await store.countAnchors('primary'), 1, 'counted before any list was read');
    assert.is(await store.countAnchors(alt.timeline_id), 0);
    await store.putAnchor(anchorOn('anc_c1', alt.timeline_id));
    await store.putAnchor(anchorOn('anc_c2', alt.timeline_id));
    await store.putAnchor(anchorOn('anc_c1', alt.timeline_id));
    assert.is(await store.countAnchors(alt.timeline_id), 2);
    assert.is((await store.listAnchors(alt.timeline_id)).length, 2);
    await store.deleteAnchor('anc_c2');
    assert.is(await store.countAnchors(alt.timeline_id), 1);
    await rejects(store.countAnchors('nope'), 'not_found');
  });

  test('anchorPins gives the anchors in instant order through puts, moves and deletes, the same array until one changes', async ({ store }) => {
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    const anchorOn = (anchorId: string, timelineId: string, timestamp: string) => ({ anchor_id: anchorId, timeline_id: timelineId, timestamp, created_at: '2026-11-27T10:00:00Z' });
    const pinned = async (timelineId: string) => (await store.anchorPins(timelineId)).map((pin) => pin.anchorId);
    await store.putAnchor(anchorOn('anc_a', 'primary', '1900-01-01T00:00:00Z'));
    await store.putAnchor(anchorOn('anc_b', 'primary', '1066-10-14T09:00:00.000000001Z'));
    await store.putAnchor(anchorOn('anc_c', 'primary', '1066-10-14T09:00:00.000000001Z'));
    assert.equal(await pinned('primary'), ['anc_b', 'anc_c', 'anc_a'], 'by instant, then by id at one instant');
    const pins = await store.anchorPins('primary');
    assert.equal(pins[0], { anchorId: 'anc_b', seconds: Date.parse('1066-10-14T09:00:00Z') / 1000, nanos: 1, setAtMs: Date.parse('2026-11-27T10:00:00Z') });
    assert.ok(Object.isFrozen(pins));
    assert.is(await store.anchorPins('primary'), pins, 'the same array while no anchor changes');
    await store.putAnchor(anchorOn('anc_a', 'primary', '0312-10-28T00:00:00Z'));
    assert.equal(await pinned('primary'), ['anc_a', 'anc_b', 'anc_c'], 'a moved anchor takes its new place');
    assert.equal(pins.map((pin) => pin.anchorId), ['anc_b', 'anc_c', 'anc_a'], 'the array handed out before stays as it was');
    await store.putAnchor(anchorOn('anc_b', alt.timeline_id, '2000-01-01T00:00:00Z'));
    assert.equal(await pinned('primary'), ['anc_a', 'anc_c']);
    assert.equal(await pinned(alt.timeline_id), ['anc_b']);
    await store.deleteAnchor('anc_a');
    assert.equal(await pinned('primary'), ['anc_c']);
    await rejects(store.anchorPins('nope'), 'not_found');
  });

  test('setStability is stored', async ({ store }) => {
    await store.setStability('primary', 'Stable');
    assert.is((await store.getTimeline('primary'))!.stability, 'Stable');
    await rejects(store.setStability('nope', 'Stable'), 'not_found');
  });

  test('bulk load: genesis events are searchable, counted, in the graph, and refused under branches', async ({ store }) => {
    const events: GenesisEvent[] = Array.from({ length: 500 }, (_, i) => ({
      event_id: `g${String(i).padStart(4, '0')}`,
      description: `genesis ${i}`,
      time: at(`1${String(100 + (i % 900)).padStart(3, '0')}-01-01T00:00:00Z`),
      location: i % 2 ? 'Kyoto, Japan' : 'Lima, Perú',
      causes: i >= 2 ? [`g${String(i - 2).padStart(4, '0')}`] : [],
    }));
    let progress = 0;
    async function* stream() {
      yield* events;
    }
    assert.is(await store.bulkLoad('primary', stream(), { batchSize: 64, onProgress: (n) => (progress = n) }), 500);
    assert.is(progress, 500);
    assert.is((await store.getTimeline('primary'))!.event_count, 500);
    assert.is((await store.getEvent('primary', 'g0007'))!.location, 'Kyoto, Japan');
    assert.is((await allPages(store, 'primary', ['peru'], 100)).length, 250);
    const graph = (await store.readCausalGraph('primary')).graph;
    assert.is(graph.eventIds.length, 500);
    const i9 = graph.eventIds.indexOf('g0009');
    assert.equal([...graph.causeTargets.slice(graph.causeOffsets[i9]!, graph.causeOffsets[i9 + 1]!)].map((t) => graph.eventIds[t]), ['g0007']);
    assert.is(graph.place[graph.eventIds.indexOf('g0001')], graph.place[graph.eventIds.indexOf('g0003')]);
    assert.is.not(graph.place[graph.eventIds.indexOf('g0001')], graph.place[graph.eventIds.indexOf('g0002')]);
    // A second load appends; re-loading the same ids is harmless.
    assert.is(await store.bulkLoad('primary', events.slice(0, 10)), 10);
    assert.is(await store.bulkLoad('primary', [{ event_id: 'extra', description: 'e', time: at('2000-01-01T00:00:00Z'), location: 'Nara', causes: ['g0001'] }]), 1);
    assert.is((await store.getTimeline('primary'))!.event_count, 501);
    assert.is((await store.readCausalGraph('primary')).graph.eventIds.length, 501);
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    await rejects(store.bulkLoad('primary', events), 'failed_precondition', /branches/);
    assert.is((await store.getTimeline(alt.timeline_id))!.event_count, 501);
    const changed = await store.manipulate(alt.timeline_id, 'g0004', { description: 'x', changes: [{ action: 'prevent', time: at('1000-01-01T00:00:00Z') }] }, 'u');
    assert.is((await store.getTimeline(alt.timeline_id))!.event_count, 500);
    assert.is((await store.getTimeline('primary'))!.event_count, 501);
    assert.is((await store.getEvent(alt.timeline_id, 'g0004'))!.superseded_by, changed.created.event_id);
  });

  test('bulk load: an event loaded again is found once, where and when it was loaded last', async ({ store }) => {
    const event = (id: string, time: string, location: string): GenesisEvent => ({ event_id: id, description: `${id} at ${time}`, time: at(time), location, causes: [] });
    await store.bulkLoad('primary', [event('A', '1900-01-01T00:00:00Z', 'Oslo'), event('C', '1920-01-01T00:00:00Z', 'Oslo')]);
    // One batch with an event loaded before, then a new one twice; then one with an event loaded again unchanged.
    const again = [event('A', '1950-01-01T00:00:00Z', 'Rome'), event('B', '1960-01-01T00:00:00Z', 'Riga'), event('B', '1970-01-01T00:00:00Z', 'Riga'), event('C', '1920-01-01T00:00:00Z', 'Oslo')];
    assert.is(await store.bulkLoad('primary', again, { batchSize: 3 }), 4);
    const shown = (events: EventRecord[]) => events.map((e) => `${e.event_id} ${e.time} ${e.location}`);
    assert.equal(shown(await allPages(store, 'primary', [], 2)), ['C 1920-01-01T00:00:00Z Oslo', 'A 1950-01-01T00:00:00Z Rome', 'B 1970-01-01T00:00:00Z Riga']);
    assert.equal(ids(await allPages(store, 'primary', ['rome'], 10)), ['A']);
    assert.equal(ids(await allPages(store, 'primary', ['oslo'], 10)), ['C']);
    assert.equal(ids(await allPages(store, 'primary', [], 10, { end: '1955-01-01T00:00:00Z' })), ['C', 'A']);
    assert.is((await store.getTimeline('primary'))!.event_count, 3);
  });

  test('bulk load that fails: the batches it wrote stand, and the timeline is not left loading', async ({ store }) => {
    const genesis = (i: number): GenesisEvent => ({ event_id: `f${i}`, description: `genesis ${i}`, time: at(`19${String(i).padStart(2, '0')}-01-01T00:00:00Z`), location: 'Riga', causes: [] });
    function* badAtTen() {
      for (let i = 0; i < 10; i++) yield genesis(i);
      yield { ...genesis(10), event_id: '' };
    }
    // Causal graphs read meanwhile (each reading genesis as it stood) are not what is read after.
    let loading = true;
    const reading = (async () => {
      while (loading) {
        (await store.readCausalGraph('primary')).release();
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await rejects(store.bulkLoad('primary', badAtTen(), { batchSize: 4 }), 'invalid_argument', /event id "": must not be empty/);
    loading = false;
    await reading;
    assert.is((await store.getTimeline('primary'))!.event_count, 8, 'the two batches written before the bad event');
    assert.equal(ids(await allPages(store, 'primary', ['riga'], 20)), ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7']);
    const graph = await store.readCausalGraph('primary');
    assert.equal([...graph.graph.eventIds].sort(), ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7']);
    graph.release();
    assert.is(await store.bulkLoad('primary', [genesis(8), genesis(9)]), 2, 'a load after it runs');
    assert.is((await store.getTimeline('primary'))!.event_count, 10);
    const branch = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });
    assert.is((await store.getTimeline(branch.timeline_id))!.event_count, 10);
  });

  test('causal graph: causes follow supersedes, cancelled events stay as cancelled nodes, reverted ones go', async ({ store }) => {
    const root = await addEvent(store, 'primary', '1000-01-01T00:00:00Z', 'A');
    const middle = await addEvent(store, 'primary', '1001-01-01T00:00:00Z', 'B', [root.event_id]);
    const leaf = await addEvent(store, 'primary', '1002-01-01T00:00:00Z', 'C', [middle.event_id, 'evt_never_existed']);
    const other = await addEvent(store, 'primary', '1003-01-01T00:00:00Z', 'D', [leaf.event_id]);
    const { created: later } = await store.manipulate('primary', middle.event_id, { description: 'late', changes: [{ action: 'reschedule', time: at('1005-01-01T00:00:00Z') }] }, 'u');
    const { created: gone } = await store.manipulate('primary', other.event_id, { description: 'prevented', changes: [{ action: 'prevent', time: at('0999-01-01T00:00:00Z') }] }, 'u');
    const read = await store.readCausalGraph('primary');
    const { graph } = read;
    const index = (id: string) => graph.eventIds.indexOf(id);
    const causes = (id: string) => [...graph.causeTargets.slice(graph.causeOffsets[index(id)]!, graph.causeOffsets[index(id) + 1]!)].map((t) => graph.eventIds[t]);
    assert.equal([...graph.eventIds].sort(), [root.event_id, leaf.event_id, later.event_id, gone.event_id].sort());
    assert.equal(causes(leaf.event_id), [later.event_id], 'effect of a superseded cause depends on its successor; unknown cause dropped');
    assert.equal(causes(later.event_id), [root.event_id], 'the new event keeps the original causes');
    assert.equal(causes(gone.event_id), [leaf.event_id]);
    assert.is(graph.state[index(gone.event_id)], 1, 'cancelled');
    assert.is(graph.state[index(leaf.event_id)], 0, 'happens');
    assert.is(graph.seconds[index(later.event_id)], Date.UTC(1005, 0, 1) / 1000);
    assert.ok(graph.manipulatedAtMs[index(later.event_id)]! > 0);
    assert.is(graph.manipulatedAtMs[index(root.event_id)], 0);
    assert.is(graph.causeOffsets.length, graph.eventIds.length + 1);
    assert.ok(read.revision >= 6);
    await store.revert('primary', later.event_id, 'u');
    const reverted = (await store.readCausalGraph('primary')).graph;
    assert.ok(standingIds(reverted).includes(middle.event_id));
    assert.not.ok(standingIds(reverted).includes(later.event_id), 'a reverted event is gone (its node, if kept, is a gone node)');
    assert.is.not((await store.readCausalGraph('primary')).stamp, read.stamp);
    const proposal = await store.manipulate('primary', root.event_id, { description: 'p', changes: [] }, 'u', async (p) => {
      const overlaid = (await store.readCausalGraph('primary', { overlay: [p.original, p.created] })).graph;
      assert.ok(standingIds(overlaid).includes(p.created.event_id));
      assert.not.ok(standingIds(overlaid).includes(root.event_id));
      assert.equal(causesOfEvent(overlaid, middle.event_id), [p.created.event_id]);
      throw new ApiError('failed_precondition', 'checked');
    }).catch((error: ApiError) => error.message);
    assert.is(proposal, 'checked');
  });

  test('arrivals carry their traveller into the graph', async ({ store }) => {
    const one = await store.insertEvent('primary', { description: 'arrival', time: at('1900-01-01T00:00:00Z'), location: 'Paris', causes: [], kind: 'arrival', traveller: 'alice' }, 'alice');
    const two = await store.insertEvent('primary', { description: 'arrival', time: at('1900-01-01T00:00:00Z'), location: 'paris', causes: [], kind: 'arrival', traveller: 'alice' }, 'alice');
    const three = await store.insertEvent('primary', { description: 'arrival', time: at('1900-01-01T00:00:00Z'), location: 'Rome', causes: [], kind: 'arrival', traveller: 'bob' }, 'bob');
    assert.is(one.kind, 'arrival');
    const { graph } = await store.readCausalGraph('primary');
    const i = (id: string) => graph.eventIds.indexOf(id);
    assert.is(graph.traveller[i(one.event_id)], graph.traveller[i(two.event_id)]);
    assert.is.not(graph.traveller[i(one.event_id)], graph.traveller[i(three.event_id)]);
    assert.ok(graph.traveller[i(one.event_id)]! >= 0);
    assert.is(graph.place[i(one.event_id)], graph.place[i(two.event_id)]);
  });

  test('each timeline reads its own acknowledged writes while other timelines write', async ({ store }) => {
    const par = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const loop = async (timeline: string) => {
      for (let i = 0; i < 40; i++) {
        const event = await addEvent(store, timeline, '1700-01-01T00:00:00Z', 'Leiden');
        assert.equal(await store.getEvent(timeline, event.event_id), event, 'visible at once');
        const { created } = await store.manipulate(timeline, event.event_id, { description: 'x', changes: [] }, 'u');
        assert.ok((await store.search(timeline, { words: ['leiden'], start: at('1700-01-01T00:00:00Z'), pageSize: 1000 })).events.some((e) => e.event_id === created.event_id));
      }
    };
    await Promise.all([loop('primary'), loop(par.timeline_id), loop('primary'), loop(par.timeline_id)]);
  });

  test('alternates created during concurrent writes see each write entirely or not at all', async ({ store }) => {
    const events: EventRecord[] = [];
    for (let i = 0; i < 20; i++) events.push(await addEvent(store, 'primary', `1300-01-${String(1 + i).padStart(2, '0')}T00:00:00Z`, 'Florence'));
    const par = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: '', variation: 'v', owner: 'u' });
    const writes = events.map((event, i) => store.manipulate(i % 2 ? 'primary' : par.timeline_id, event.event_id, { description: 'x', changes: [] }, 'u'));
    const forks = events.map((_, i) => store.createTimeline({ kind: 'alternate', base_timeline_id: i % 2 ? 'primary' : par.timeline_id, description: '', variation: '', owner: 'u' }));
    const results = await Promise.all(writes);
    for (const fork of await Promise.all(forks)) {
      for (const { original, created } of results) {
        const seenOriginal = await store.getEvent(fork.timeline_id, original.event_id);
        const seenCreated = await store.getEvent(fork.timeline_id, created.event_id);
        if (fork.base_timeline_id === 'primary' && created.timeline_id !== 'primary') {
          assert.is(seenCreated, undefined);
          continue;
        }
        assert.is(seenOriginal?.superseded_by === created.event_id, seenCreated !== undefined, 'atomic: both halves or neither');
      }
      const page = await allPages(store, fork.timeline_id, ['florence'], 7);
      assert.is(page.length, 20, 'every event exactly once, as original or as successor');
    }
  });

  test('reopen finds everything as it was', async ({ store, harness }) => {
    const a = await addEvent(store, 'primary', '1400-01-01T00:00:00Z', 'Prague');
    const b = await addEvent(store, 'primary', '1401-01-01T00:00:00Z', 'Prague', [a.event_id]);
    await store.bulkLoad('primary', [{ event_id: 'g1', description: 'genesis', time: at('1399-01-01T00:00:00Z'), location: 'Prague', causes: [] }]);
    const alt = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'd', variation: '', owner: 'o' });
    const changed = await store.manipulate('primary', a.event_id, { description: 'after fork', changes: [{ action: 'reschedule', time: at('1402-01-01T00:00:00Z') }] }, 'u');
    const par = await store.createTimeline({ kind: 'parallel', base_timeline_id: alt.timeline_id, description: 'p', variation: 'v', owner: 'o' });
    const onPar = await store.manipulate(par.timeline_id, 'g1', { description: 'genesis changed', changes: [] }, 'u');
    await store.putAnchor({ anchor_id: 'anc', timeline_id: par.timeline_id, timestamp: '1400-06-01T00:00:00Z' });
    await store.setStability(alt.timeline_id, 'Unstable');
    const snapshot = async (s: TimelineStore) => ({
      timelines: await s.listTimelines(),
      primary: ids(await allPages(s, 'primary', ['prague'], 2)),
      alt: ids(await allPages(s, alt.timeline_id, ['prague'], 2)),
      par: ids(await allPages(s, par.timeline_id, [], 2)),
      events: [await s.getEvent('primary', a.event_id), await s.getEvent(alt.timeline_id, a.event_id), await s.getEvent(par.timeline_id, 'g1')],
      anchors: await s.listAnchors(par.timeline_id),
      graph: [...(await s.readCausalGraph(par.timeline_id)).graph.eventIds].sort(),
    });
    const before = await snapshot(store);
    assert.equal(before.primary, ['g1', b.event_id, changed.created.event_id]);
    assert.equal(before.alt, ['g1', a.event_id, b.event_id]);
    assert.equal(before.par, [onPar.created.event_id, a.event_id, b.event_id]);
    const reopened = await harness.reopen();
    assert.equal(await snapshot(reopened), before);
    const after = await reopened.manipulate('primary', b.event_id, { description: 'after reopen', changes: [] }, 'u');
    assert.is((await reopened.getEvent(alt.timeline_id, b.event_id))!.superseded_by, undefined, 'caps survive the reopen');
    assert.is((await reopened.getEvent('primary', b.event_id))!.superseded_by, after.created.event_id);
  });

  test.run();
}
