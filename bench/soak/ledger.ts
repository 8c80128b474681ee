/** The ledger of acknowledged writes, and the read-back that checks, with the load paused, that each one still stands. */
import { field, send } from './faces.ts';
import type { RunState } from './run-state.ts';

export interface CatalogueEvent {
  event_id: string;
  time: string;
  location: string;
}

/** What one event of a branch must look like: the id standing on it, or unknown after a write lost at a kill. */
export interface EventState {
  event: CatalogueEvent;
  /** The id expected to stand: the original, or the manipulation's new event. Undefined while uncertain. */
  standing: string | undefined;
  /** While uncertain: the write that went unanswered, and the id that stood before it. */
  unanswered?: { write: 'manipulate' | 'revert'; before: string };
}

export interface Branch {
  timeline_id: string;
  /** As created: read back, the record must still say so. */
  kind: 'alternate' | 'parallel';
  description: string;
  owner: number;
  /** 'uncertain': a deletion went unanswered at a kill; the next read-back settles it. */
  state: 'live' | 'deleted' | 'uncertain';
  /** Acknowledged manipulations and reverts, and those whose answer a kill swallowed. */
  acknowledged: number;
  unanswered: number;
  events: Map<string, EventState>;
}

export interface Ledger {
  branchesCreated: number;
  branchesDeleted: number;
  manipulations: number;
  reverts: number;
  anchors: { anchor_id: string; environment: Record<string, string> }[];
  /** Writes whose answer was lost at a kill: applied or not, the read-back says which. */
  unanswered: number;
  unansweredApplied: number;
  lost: string[];
  /** Acknowledged writes read back at least once. */
  verified: number;
}

export interface ReadBack {
  at: number;
  after: string;
  checked: number;
  lost: number;
  settled: number;
  ms: number;
}

/** Every read-back goes over REST, one request at a time per branch, with the load paused. */
export async function readBack(run: RunState, after: string): Promise<void> {
  const { now, ledger, branches } = run;
  const started = performance.now();
  const at = now();
  let checked = 0;
  let settled = 0;
  const lostBefore = ledger.lost.length;
  const lose = (what: string) => ledger.lost.push(`${what} (read back after ${after})`);
  const queue = branches.filter((branch) => branch.state !== 'deleted');
  const one = async (branch: Branch) => {
    const got = await send(run, 'REST', 'tms.v1.TimelineService.GetTimeline', { timeline_id: branch.timeline_id });
    if (branch.state === 'uncertain') {
      if (got.status === 404) branch.state = 'deleted';
      else if (got.status === 200) branch.state = 'live';
      else throw new Error(`read-back: GET /timeline/${branch.timeline_id} answered ${got.status}${got.failure ? ` (${got.failure})` : ''}`);
      settled++;
      if (branch.state === 'deleted') {
        ledger.branchesDeleted++;
        ledger.unansweredApplied++;
        return;
      }
    }
    checked++;
    if (got.status !== 200) {
      lose(`branch ${branch.timeline_id}: GET /timeline answered ${got.status}`);
      return;
    }
    const timeline = (got.json?.['timeline'] ?? {}) as Record<string, unknown>;
    const revision = Number(timeline['revision'] ?? 0);
    if (timeline['kind'] !== branch.kind || timeline['description'] !== branch.description || timeline['base_timeline_id'] !== 'primary') {
      lose(`branch ${branch.timeline_id}: created as a ${branch.kind} branch of primary, "${branch.description}"; read back ${JSON.stringify(timeline)}`);
    }
    if (revision < branch.acknowledged) lose(`branch ${branch.timeline_id}: revision ${revision} < ${branch.acknowledged} acknowledged writes`);
    // Every event standing on the branch, in pages: the catalogue's few hundred fit in one or two.
    const standing = new Map<string, string>();
    let pageToken = '';
    do {
      const found = await send(run, 'REST', 'tms.v1.EventService.SearchEvents', { timeline_id: branch.timeline_id, page_size: 1000, ...(pageToken ? { page_token: pageToken } : {}) });
      if (found.status !== 200) throw new Error(`read-back: search on ${branch.timeline_id} answered ${found.status}${found.failure ? ` (${found.failure})` : ''}`);
      for (const e of (found.json?.['events'] ?? []) as { event_id: string; supersedes?: string }[]) standing.set(e.supersedes ?? e.event_id, e.event_id);
      pageToken = field(found.json, 'next_page_token') ?? '';
    } while (pageToken);
    for (const state of branch.events.values()) {
      const { event } = state;
      const id = standing.get(event.event_id);
      const version = id === undefined ? undefined : { event_id: id };
      if (state.standing === undefined) {
        // A write a kill swallowed: it happened or it did not, and the version standing now must say which.
        if (!state.unanswered) continue; // an answer without its new id, already counted as lost
        const { write, before } = state.unanswered;
        const applied = write === 'manipulate' ? version !== undefined && version.event_id !== before : version?.event_id === event.event_id;
        const notApplied = version?.event_id === before;
        if (!applied && !notApplied) lose(`event ${event.event_id} on ${branch.timeline_id}: after an unanswered ${write} of ${before}, found ${version?.event_id ?? 'nothing'}`);
        if (applied) ledger.unansweredApplied++;
        state.standing = version?.event_id;
        state.unanswered = undefined;
        settled++;
        continue;
      }
      checked++;
      if (version?.event_id !== state.standing) {
        lose(`event ${event.event_id} on ${branch.timeline_id}: expected ${state.standing} to stand, found ${version?.event_id ?? 'nothing'}`);
      }
    }
  };
  // A few branches at a time: quick, without flooding a process that has just started.
  const workers = Array.from({ length: 6 }, async () => {
    for (let branch = queue.shift(); branch; branch = queue.shift()) await one(branch);
  });
  await Promise.all(workers);
  const anchors = [...ledger.anchors];
  const checkAnchor = async (anchor: Ledger['anchors'][number]) => {
    checked++;
    const got = await send(run, 'REST', 'tms.v1.AnchorService.CheckAnchorStability', { anchor_id: anchor.anchor_id });
    if (got.status === 404) lose(`anchor ${anchor.anchor_id}: 404`);
    else if (got.status !== 200) throw new Error(`read-back: check-anchor-stability ${anchor.anchor_id} answered ${got.status}${got.failure ? ` (${got.failure})` : ''}`);
    else if (JSON.stringify(got.json?.['current_conditions']) !== JSON.stringify(anchor.environment)) {
      lose(`anchor ${anchor.anchor_id}: set with ${JSON.stringify(anchor.environment)}, read back ${JSON.stringify(got.json?.['current_conditions'])}`);
    }
  };
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let anchor = anchors.shift(); anchor; anchor = anchors.shift()) await checkAnchor(anchor);
    }),
  );
  ledger.verified = Math.max(ledger.verified, checked);
  run.readBacks.push({ at, after, checked, lost: ledger.lost.length - lostBefore, settled, ms: performance.now() - started });
}
