/** One operation of the load, chosen at random by weight, sent over one face; the writes it makes go into the ledger. */
import { setTimeout as sleep } from 'node:timers/promises';
import { counted, type Kind, type Outcome } from './counting.ts';
import { field, retryAfterSeconds, type Face } from './faces.ts';
import type { RunState } from './run-state.ts';

export const LOGIN_USER = 'soak';
export const LOGIN_PASSWORD = 'soak-password-not-secret-0001';

const isoYear = (year: number) => (year < 0 ? `-${String(-year).padStart(6, '0')}` : year > 9999 ? `+${String(year).padStart(6, '0')}` : String(year).padStart(4, '0'));

/** A time range over the catalogue's centuries: two event times, a start and a duration, or a window around one. */
function timeRange({ rand, pickOne, catalogue }: RunState): string {
  const choice = rand();
  if (choice < 0.4) {
    const [a, b] = [pickOne(catalogue).time, pickOne(catalogue).time].sort((x, y) => Date.parse(x) - Date.parse(y));
    return `${a}/${b}`;
  }
  if (choice < 0.7) return `${pickOne(catalogue).time}/P${1 + Math.floor(rand() * 300)}Y`;
  const year = -500 + Math.floor(rand() * 2525);
  return `${isoYear(year)}-01-01T00:00:00Z/${isoYear(year + 1 + Math.floor(rand() * 80))}-12-31T23:59:59Z`;
}

export interface Worker {
  index: number;
  session: string | undefined;
}

const MAX_BRANCHES_PER_WORKER = 3;
const WEIGHTS: [Kind, number][] = [
  ['search', 41],
  ['manipulate', 16],
  ['revert', 10],
  ['create-branch', 4],
  ['delete-branch', 3],
  ['check-paradox', 8],
  ['set-anchor', 2],
  ['check-anchor', 8],
  ['login', 1],
];
const WEIGHT_TOTAL = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
export function pickKind(rand: () => number): Kind {
  let roll = rand() * WEIGHT_TOTAL;
  for (const [kind, weight] of WEIGHTS) if ((roll -= weight) < 0) return kind;
  return 'search';
}

/** A write that got no answer, or a 5xx, may or may not have happened (a 4xx did not). */
const unanswered = (outcome: Outcome) => outcome === 'restart' || outcome === 'server-error';

export async function operate(run: RunState, worker: Worker, kind: Kind, face: Face): Promise<void> {
  const { rand, pickOne, ledger, branches, catalogue, locations } = run;
  const own = branches.filter((b) => b.owner === worker.index && b.state === 'live');
  if (own.length === 0 || (kind === 'create-branch' && own.length < MAX_BRANCHES_PER_WORKER)) {
    const parallel = rand() < 0.4;
    const description = `soak branch ${Math.floor(rand() * 1e9)} of worker ${worker.index}`;
    const { outcome, reply } = await counted(run, face, 'create-branch', parallel ? 'tms.v1.TimelineService.CreateParallelTimeline' : 'tms.v1.TimelineService.CreateTimeline', {
      base_timeline_id: 'primary',
      description,
      ...(parallel ? { variation: 'soak variation' } : {}),
    });
    const id = field(reply.json, 'timeline_id');
    if (outcome === 'ok' && id) {
      ledger.branchesCreated++;
      branches.push({ timeline_id: id, kind: parallel ? 'parallel' : 'alternate', description, owner: worker.index, state: 'live', acknowledged: 0, unanswered: 0, events: new Map() });
    } else if (outcome === 'ok') ledger.lost.push(`branch creation returned no timeline_id: ${JSON.stringify(reply.json)}`);
    // A branch whose answer was lost is not tracked: its id is unknown.
    else if (unanswered(outcome)) ledger.unanswered++;
    return;
  }
  if (kind === 'create-branch') kind = 'search';
  const branch = pickOne(own);
  const settledEvents = [...branch.events.values()].filter((state) => state.standing !== undefined);
  switch (kind) {
    case 'search': {
      const onBranch = rand() < 0.25;
      await counted(run, face, 'search', 'tms.v1.EventService.SearchEvents', {
        location: pickOne(locations),
        time_range: timeRange(run),
        page_size: 20,
        ...(onBranch ? { timeline_id: branch.timeline_id } : {}),
      });
      return;
    }
    case 'manipulate':
    case 'revert': {
      const manipulated = settledEvents.filter((state) => state.standing !== state.event.event_id);
      const untouched = catalogue.filter((event) => {
        const state = branch.events.get(event.event_id);
        return !state || state.standing === event.event_id;
      });
      // A long run manipulates every event of a branch: then it reverts one.
      if (manipulated.length > 0 && (kind === 'revert' || untouched.length === 0)) {
        const state = pickOne(manipulated);
        const { outcome, reply } = await counted(run, face, 'revert', 'tms.v1.EventService.RevertEvent', { event_id: state.standing!, timeline_id: branch.timeline_id });
        if (outcome === 'ok') {
          const original = field(reply.json, 'original_event_id');
          if (original !== state.event.event_id) ledger.lost.push(`revert of ${state.standing} on ${branch.timeline_id} returned ${original}`);
          state.standing = state.event.event_id;
          branch.acknowledged++;
          ledger.reverts++;
        } else if (unanswered(outcome)) {
          state.unanswered = { write: 'revert', before: state.standing! };
          state.standing = undefined;
          branch.unanswered++;
          ledger.unanswered++;
        }
        return;
      }
      // Nothing to write when every event's last write went unanswered (its outcome is known only at the read-back).
      if (untouched.length === 0) return;
      const event = pickOne(untouched);
      const { outcome, reply } = await counted(run, face, 'manipulate', 'tms.v1.EventService.ManipulateEvent', {
        event_id: event.event_id,
        timeline_id: branch.timeline_id,
        safety_check: rand() < 0.3,
        new_outcome: { description: `soak outcome ${Math.floor(rand() * 1e9)}`, changes: [{ action: 'observe', time: event.time }] },
      });
      const state = branch.events.get(event.event_id) ?? { event, standing: event.event_id };
      branch.events.set(event.event_id, state);
      if (outcome === 'ok') {
        const created = field(reply.json, 'new_event_id');
        if (!created) ledger.lost.push(`manipulation of ${event.event_id} on ${branch.timeline_id} returned no new_event_id`);
        state.standing = created;
        branch.acknowledged++;
        ledger.manipulations++;
      } else if (unanswered(outcome)) {
        state.unanswered = { write: 'manipulate', before: event.event_id };
        state.standing = undefined;
        branch.unanswered++;
        ledger.unanswered++;
      }
      return;
    }
    case 'delete-branch': {
      if (own.length < 2) return operate(run, worker, 'search', face);
      const { outcome } = await counted(run, face, 'delete-branch', 'tms.v1.TimelineService.DeleteTimeline', { timeline_id: branch.timeline_id });
      if (outcome === 'ok') {
        branch.state = 'deleted';
        ledger.branchesDeleted++;
      } else if (unanswered(outcome)) {
        branch.state = 'uncertain';
        ledger.unanswered++;
      }
      return;
    }
    case 'check-paradox':
      await counted(run, face, 'check-paradox', 'tms.v1.ParadoxService.CheckParadox', { timeline_id: rand() < 0.8 ? branch.timeline_id : 'primary' });
      return;
    case 'set-anchor': {
      const nano = rand() < 0.1;
      const environment = { temperature: `${15 + Math.floor(rand() * 15)}°C`, humidity: `${20 + Math.floor(rand() * 60)}%`, em_field_strength: `${(rand() * 2).toFixed(2)}T` };
      const { outcome, reply } = await counted(run, face, 'set-anchor', 'tms.v1.AnchorService.SetAnchor', {
        timestamp: `20${10 + Math.floor(rand() * 20)}-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 10)}T12:00:00.${String(Math.floor(rand() * 1e9)).padStart(9, '0')}Z`,
        description: `soak anchor of worker ${worker.index}`,
        accuracy: nano ? 'nanosecond' : 'microsecond',
        environment,
        quantum_state: { qubit_configuration: '1010', superposition_stability: '99.9%' },
      });
      const id = field(reply.json, 'anchor_id');
      if (outcome === 'ok' && id) ledger.anchors.push({ anchor_id: id, environment });
      else if (unanswered(outcome)) ledger.unanswered++;
      return;
    }
    case 'check-anchor':
      if (ledger.anchors.length === 0) return operate(run, worker, 'set-anchor', face);
      await counted(run, face, 'check-anchor', 'tms.v1.AnchorService.CheckAnchorStability', { anchor_id: pickOne(ledger.anchors).anchor_id });
      return;
    case 'login': {
      let { outcome, reply } = await counted(run, face, 'login', 'tms.v1.AccountService.Login', { username: LOGIN_USER, password: LOGIN_PASSWORD }, null);
      // As a careful client does: wait as long as the answer says, then try once more.
      for (let tries = 1; outcome === 'shed' && tries < 4; tries++) {
        await sleep(1000 * retryAfterSeconds(reply));
        ({ outcome, reply } = await counted(run, face, 'login', 'tms.v1.AccountService.Login', { username: LOGIN_USER, password: LOGIN_PASSWORD }, null));
      }
      const token = field(reply.json, 'token');
      if (outcome === 'ok' && token) worker.session = token;
      // The session is then used as the bearer of a search on primary (read scope), as a console would.
      if (worker.session) await counted(run, face, 'search', 'tms.v1.EventService.SearchEvents', { location: pickOne(locations), time_range: timeRange(run), page_size: 20 }, worker.session);
      return;
    }
  }
}
