/**
 * Copies a whole store from one backend to another: every timeline with its branches, versions, indexes and
 * anchors (the timeline store's entries, byte for byte), every account, key and session, and every saved
 * console request. The target must be new; the copy is then checked by counts and a checksum per timeline.
 */
import { createHash } from 'node:crypto';
import type { Storage } from './storage.ts';
import type { TimelineStore } from './types.ts';
import type { WriteOp } from './ordered-kv.ts';
import { withoutStrays, type Skipped } from './stray-credentials.ts';

const BATCH = 5000;

export interface CopyProgress {
  /** Timeline store entries copied so far, of `total`. */
  copied: number;
  total: number;
}

export interface TimelineCheck {
  timeline_id: string;
  events: number;
  /** SHA-256 over the timeline's events as search returns them, and its anchors. */
  checksum: string;
}

export interface CopyReport {
  entries: number;
  accounts: number;
  keys: number;
  sessions: number;
  savedRequests: number;
  /** Keys and sessions of accounts the source did not hold, not copied. */
  skipped: Skipped;
  timelines: TimelineCheck[];
}

/** Whether a store holds nothing but the empty `primary` every store starts with (`tms restore` asks too). */
export async function isEmptyStore(target: Storage): Promise<boolean> {
  const timelines = await target.timelines.listTimelines();
  const accounts = await target.accounts.loadAll();
  let saved = 0;
  for await (const _ of target.savedRequests.all()) saved++;
  return !(timelines.length > 1 || timelines[0]!.event_count > 0 || timelines[0]!.revision > 0 || accounts.accounts.length > 0 || saved > 0);
}

/** Refuses a target that holds anything but the empty `primary` every store starts with. */
async function assertEmpty(target: Storage): Promise<void> {
  if (!(await isEmptyStore(target))) throw new Error('the target store is not empty: copy into a new folder or an empty database');
}

async function countEntries(storage: Storage): Promise<number> {
  let count = 0;
  await storage.timelineEntries.snapshot(async (reads) => {
    const reader = reads.reader({});
    try {
      for (let chunk = await reader.next(BATCH); chunk.length > 0; chunk = await reader.next(BATCH)) count += chunk.length;
    } finally {
      await reader.close();
    }
  });
  return count;
}

/** Copies; the target's timeline store must be reopened before it is read (see `checkTimelines`). */
export async function copyStore(from: Storage, to: Storage, onProgress: (progress: CopyProgress) => void = () => undefined): Promise<Omit<CopyReport, 'timelines'>> {
  await assertEmpty(to);
  const total = await countEntries(from);
  // The target's own empty primary goes: the source's takes its place.
  await to.timelineEntries.clear({});
  let copied = 0;
  let last: WriteOp | undefined;
  await from.timelineEntries.snapshot(async (reads) => {
    const reader = reads.reader({});
    try {
      for (let chunk = await reader.next(BATCH); chunk.length > 0; chunk = await reader.next(BATCH)) {
        const ops = chunk.map(([key, value]): WriteOp => ({ type: 'put', key, value }));
        await to.timelineEntries.write(ops, false);
        last = ops.at(-1);
        copied += chunk.length;
        onProgress({ copied, total });
      }
    } finally {
      await reader.close();
    }
  });
  // The last entry again, durably: each backend's log is sequential, so everything before it is durable too.
  if (last) await to.timelineEntries.write([last], true);

  const accounts = await from.accounts.loadAll();
  for (const account of accounts.accounts) await to.accounts.putAccount(account);
  const { keys, sessions, skipped } = withoutStrays(new Set(accounts.accounts.map((account) => account.username)), accounts.keys, accounts.sessions);
  for (const key of keys) await to.accounts.putKey(key);
  for (const session of sessions) await to.accounts.putSession(session);
  let savedRequests = 0;
  for await (const record of from.savedRequests.all()) {
    await to.savedRequests.put(record);
    savedRequests++;
  }
  return { entries: copied, accounts: accounts.accounts.length, keys: keys.length, sessions: sessions.length, savedRequests, skipped };
}

/** Each timeline's event count and checksum, to compare a copy with its source. */
export async function checkTimelines(store: TimelineStore): Promise<TimelineCheck[]> {
  const checks: TimelineCheck[] = [];
  for (const timeline of await store.listTimelines()) {
    const hash = createHash('sha256');
    let events = 0;
    let cursor: string | undefined;
    do {
      const page = await store.search(timeline.timeline_id, { words: [], pageSize: 1000, ...(cursor && { cursor }) });
      for (const event of page.events) hash.update(JSON.stringify(event)).update('\n');
      events += page.events.length;
      cursor = page.nextCursor;
    } while (cursor);
    for (const anchor of await store.listAnchors(timeline.timeline_id)) hash.update(JSON.stringify(anchor)).update('\n');
    hash.update(JSON.stringify({ ...timeline, event_count: undefined }));
    checks.push({ timeline_id: timeline.timeline_id, events, checksum: hash.digest('hex') });
  }
  return checks;
}
