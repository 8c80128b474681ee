/**
 * Soak and faults: a mixed load against a real tms process over REST, Connect and gRPC at once (searches over
 * many time ranges, manipulations and reverts, branch creation and deletion, paradox and anchor checks,
 * logins), while the process is killed with SIGKILL at random moments and restarted on the same LevelDB
 * folder. Every acknowledged write is recorded with what it returned and read back after each restart and at
 * the end. Checks: no acknowledged write lost, no 5xx outside restarts (requests in flight at a kill, or
 * refused while the service restarts, are counted apart), resident memory flat after warm-up, event-loop
 * delay p99 low. Writes bench/reports/soak.md, soak.svg and soak.json (BENCH_REPORTS_DIR moves them); exits
 * with 1 when a check fails.
 *
 *   npm run soak -- --minutes 2
 *   npm run soak -- --seconds 30 --concurrency 8 --kills 1 --seed 7
 */
import { Command, InvalidArgumentError } from 'commander';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, credentials, status as grpcStatus } from '@grpc/grpc-js';
import { fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { rpcMethods } from '../src/server/connect/services.ts';
import { authorizedBy, isServiceError, unary } from '../test/support/grpc.ts';
import { startTms, type ServerProcess } from './lib/tms-process.ts';
import { machineLine, percentile, reportsDir, table, writeReport } from './lib/report.ts';
import { lineChartSvg, type Series } from './lib/chart.ts';
import { mulberry32 } from '../src/synthetic/prng.ts';

// ------------------------------------------------------------------ options

const number = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return parsed;
};
const options = new Command()
  .name('npm run soak --')
  .description('Mixed load over REST, Connect and gRPC against a real tms process, killed with SIGKILL and restarted at random moments.')
  .option('--minutes <n>', 'how long to run (fractions allowed)', number('--minutes'))
  .option('--seconds <n>', 'how long to run, in seconds (instead of --minutes)', number('--seconds'))
  .option('--concurrency <n>', 'requests in flight', number('--concurrency'), 12)
  .option('--rate <n>', 'operations started per second, across all workers (default: as fast as they complete)', number('--rate'))
  .option('--kills <n>', 'SIGKILLs to aim for (default: one per 40 s); fewer when the run is too short for them, but always one', number('--kills'))
  .option('--seed <n>', 'seed of the random choices (kill moments, operations, faces)', number('--seed'))
  .parse()
  .opts<{ minutes?: number; seconds?: number; concurrency: number; rate?: number; kills?: number; seed?: number }>();

const durationS = options.seconds ?? (options.minutes ?? 1) * 60;
const concurrency = Math.round(options.concurrency);
const seed = Math.round(options.seed ?? Date.now() % 1_000_000);
/**
 * The first part of each process's life (JIT, the heap growing to its working size, caches filling to their
 * budgets) is left out of the memory and loop-delay figures: a tenth of the run, from 3 s to 5 minutes, because
 * the heap and caches of a long run take minutes to settle and a short run has only seconds.
 */
const warmupS = Math.min(300, Math.max(3, durationS * 0.1));
/**
 * The memory windows compared within one process life: right after warm-up, and its last seconds. Long runs get
 * longer windows (up to a minute), so that each median spans several collections of the heap's sawtooth.
 */
const windowS = Math.min(60, Math.max(2, durationS * 0.05));
/** A life must hold warm-up and both windows for its memory to be judged, and the kills are spaced so that each does. */
const minLifeS = warmupS + 2 * windowS + 1;
/** A first guess of the time from a kill until the load resumes (restart, then read-back); the run then measures it. */
const DOWNTIME_GUESS_S = 5;
const maxKills = Math.max(1, Math.floor((durationS - minLifeS) / (minLifeS + DOWNTIME_GUESS_S)));
const killsWanted = Math.min(options.kills === undefined ? Math.max(1, Math.floor(durationS / 40)) : Math.round(options.kills), maxKills);
const RSS_GROWTH_LIMIT = 0.1;
/** prom-client samples the loop every 10 ms, so an idle loop reads 10 ms; the project's target is 20 ms p99. */
const LOOP_P99_LIMIT_MS = 20;
const LOOP_WINDOW_SHARE = 0.9;

const KEY = 'tms_soak_admin_key_0000000000000000';
const LOGIN_USER = 'soak';
const LOGIN_PASSWORD = 'soak-password-not-secret-0001';

// Seeded, so that a failing run can be replayed with its --seed.
const rand = mulberry32(seed);
/** The kill moments draw from their own sequence, so a seed gives the same ones whatever the requests did. */
const killRand = mulberry32(seed ^ 0x5eed);
const pickOne = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

// ------------------------------------------------------------------ the service, its lives and its faces

type Face = 'REST' | 'Connect' | 'gRPC';
const FACES: Face[] = ['REST', 'Connect', 'gRPC'];

interface Life {
  index: number;
  pid: number;
  port: number;
  /** Seconds since the run started. */
  spawnedAt: number;
  readyAt: number;
  /** When the load ran on it: after the read-back that follows a restart. */
  loadFrom: number;
  endedAt?: number;
  killed: boolean;
  server: ServerProcess;
  grpc: Client;
}

const runStarted = performance.now();
const now = () => (performance.now() - runStarted) / 1000;
const lives: Life[] = [];
let life: Life | undefined;
/** Intervals (seconds since start) from a kill until the next process answers /readyz 200. */
const outages: { from: number; to?: number }[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: concurrency * 2 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The wait a 429 asks for: every face carries it in the message ("retry after N s"); 1 s if it does not say. */
const retryAfterSeconds = (reply: Reply): number => Number(/retry after (\d+) s/.exec(String(reply.json?.['message'] ?? ''))?.[1] ?? 1);

interface Reply {
  /** The HTTP status, or for gRPC the HTTP status its code maps to; 0 when no answer came (connection failed). */
  status: number;
  json: Record<string, unknown> | undefined;
  /** The request never reached the service (connection refused): it cannot have done anything. */
  refused?: boolean;
  /** Why no answer came (status 0). */
  failure?: string;
}

/** The HTTP status each gRPC code maps to (as the Connect protocol maps them). */
const GRPC_HTTP: Record<number, number> = {
  [grpcStatus.OK]: 200,
  [grpcStatus.CANCELLED]: 499,
  [grpcStatus.UNKNOWN]: 500,
  [grpcStatus.INVALID_ARGUMENT]: 400,
  [grpcStatus.DEADLINE_EXCEEDED]: 504,
  [grpcStatus.NOT_FOUND]: 404,
  [grpcStatus.ALREADY_EXISTS]: 409,
  [grpcStatus.PERMISSION_DENIED]: 403,
  [grpcStatus.RESOURCE_EXHAUSTED]: 429,
  [grpcStatus.FAILED_PRECONDITION]: 400,
  [grpcStatus.ABORTED]: 409,
  [grpcStatus.OUT_OF_RANGE]: 400,
  [grpcStatus.UNIMPLEMENTED]: 501,
  [grpcStatus.INTERNAL]: 500,
  [grpcStatus.UNAVAILABLE]: 503,
  [grpcStatus.DATA_LOSS]: 500,
  [grpcStatus.UNAUTHENTICATED]: 401,
};

/**
 * One HTTP request. A read sent on a kept-alive connection that the service closed as idle meanwhile (its keep-alive
 * timeout) is reset before the service reads it, and is sent again once on a new connection, as Node's docs advise;
 * a write is not, as it cannot be told apart from one the service read.
 */
async function http(port: number, method: string, path: string, body: unknown, bearer: string | null): Promise<Reply> {
  const reply = await httpOnce(port, method, path, body, bearer);
  if (reply.staleConnection && method === 'GET') return httpOnce(port, method, path, body, bearer);
  return reply;
}

function httpOnce(port: number, method: string, path: string, body: unknown, bearer: string | null): Promise<Reply & { staleConnection?: boolean }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(text) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bearer) headers['authorization'] = `Bearer ${bearer}`;
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, json: undefined, failure: error.code ?? error.message }));
      res.on('end', () => {
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        status: 0,
        json: undefined,
        refused: error.code === 'ECONNREFUSED',
        failure: error.code ?? error.message,
        staleConnection: req.reusedSocket && error.code === 'ECONNRESET',
      }),
    );
    req.end(text);
  });
}

/** The documented REST route of each RPC the soak sends. */
const REST_ROUTES: Record<string, (body: Record<string, unknown>) => { method: string; path: string; body?: unknown }> = {
  'tms.v1.EventService.SearchEvents': (body) => ({ method: 'GET', path: '/v1/search-events', body }),
  'tms.v1.EventService.ManipulateEvent': (body) => ({ method: 'POST', path: '/v1/manipulate-event', body }),
  'tms.v1.EventService.RevertEvent': (body) => ({ method: 'POST', path: '/v1/revert-event', body }),
  'tms.v1.TimelineService.CreateTimeline': (body) => ({ method: 'POST', path: '/v1/create-timeline', body }),
  'tms.v1.TimelineService.CreateParallelTimeline': (body) => ({ method: 'POST', path: '/v1/create-parallel-timeline', body }),
  'tms.v1.TimelineService.GetTimeline': (body) => ({ method: 'GET', path: `/timeline/${String(body['timeline_id'])}` }),
  'tms.v1.TimelineService.DeleteTimeline': (body) => ({ method: 'DELETE', path: `/timeline/${String(body['timeline_id'])}` }),
  'tms.v1.ParadoxService.CheckParadox': (body) => ({ method: 'GET', path: '/v1/check-paradox', body }),
  'tms.v1.AnchorService.SetAnchor': (body) => ({ method: 'POST', path: '/v1/set-anchor', body }),
  'tms.v1.AnchorService.CheckAnchorStability': (body) => ({ method: 'GET', path: '/v1/check-anchor-stability', body }),
  'tms.v1.AccountService.Login': (body) => ({ method: 'POST', path: '/v1/login', body }),
  'tms.v1.AccountService.CreateAccount': (body) => ({ method: 'POST', path: '/v1/accounts', body }),
};

function grpc(client: Client, rpc: string, body: Record<string, unknown>, bearer: string | null): Promise<Reply> {
  const method = rpcMethods.get(rpc)!;
  const path = `/${method.parent.typeName}/${method.name}`;
  const metadata = authorizedBy(bearer);
  return unary(client, path, method.input, method.output, fromJson(method.input, body as JsonValue), metadata).then(
    (response) => ({ status: 200, json: toJson(method.output, response, { useProtoFieldName: true }) as Record<string, unknown> }),
    (error: unknown) => {
      // A client closed at a kill refuses to send at all.
      if (!isServiceError(error)) return { status: 0, json: undefined, refused: true };
      // A connection that could not be made (or dropped) is no answer from the service.
      if (error.code === grpcStatus.UNAVAILABLE && /connect|connection|ECONNREFUSED|ECONNRESET|socket/i.test(error.details)) {
        return { status: 0, json: undefined, refused: /ECONNREFUSED|No connection established/i.test(error.details) };
      }
      return { status: GRPC_HTTP[error.code] ?? 500, json: { code: error.code, message: error.details } };
    },
  );
}

/** One RPC over one face, against the current process. */
function send(face: Face, rpc: string, body: Record<string, unknown>, bearer: string | null = KEY): Promise<Reply> {
  const current = life;
  if (!current) return Promise.resolve({ status: 0, json: undefined });
  if (face === 'gRPC') return grpc(current.grpc, rpc, body, bearer);
  if (face === 'Connect') {
    const method = rpcMethods.get(rpc)!;
    return http(current.port, 'POST', `/${method.parent.typeName}/${method.name}`, body, bearer);
  }
  const route = REST_ROUTES[rpc]!(body);
  return http(current.port, route.method, route.path, route.body, bearer);
}

/** A field of a JSON answer: proto field names (REST, gRPC here) or their camelCase JSON names (Connect). */
function field(json: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = json?.[name] ?? json?.[name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function waitReady(port: number): Promise<void> {
  const givesUpAt = Date.now() + 120_000;
  for (;;) {
    const reply = await http(port, 'GET', '/readyz', undefined, null);
    if (reply.status === 200) return;
    if (Date.now() > givesUpAt) throw new Error(`tms on port ${port} not ready within 120 s`);
    await sleep(50);
  }
}

/** Set when the service exits without being killed: the run stops there, failed. */
let exitedOnItsOwn: string | undefined;
let stopOnExit: (error: Error) => void = () => undefined;
const exitedUnkilled = new Promise<never>((_, reject) => (stopOnExit = reject));
exitedUnkilled.catch(() => undefined);
/** A wait of the run's own that ends the run at once if the service exits without being killed. */
const watchfulSleep = (ms: number) => Promise.race([sleep(ms), exitedUnkilled]);

async function startLife(dataDir: string): Promise<Life> {
  const spawnedAt = now();
  const server = await startTms(dataDir, KEY);
  await waitReady(server.port);
  const started: Life = {
    index: lives.length + 1,
    pid: server.child.pid!,
    port: server.port,
    spawnedAt,
    readyAt: now(),
    loadFrom: now(),
    killed: false,
    server,
    grpc: new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()),
  };
  lives.push(started);
  life = started;
  server.child.once('exit', (code, signal) => {
    if (started.killed || stopping) return;
    started.endedAt = now();
    exitedOnItsOwn ??= `tms (pid ${started.pid}) exited on its own ${(now() - started.readyAt).toFixed(1)} s into life ${started.index}: exit code ${code}, signal ${signal}`;
    console.error(`soak: ${exitedOnItsOwn}`);
    stopOnExit(new Error(exitedOnItsOwn));
  });
  return started;
}

async function kill(current: Life): Promise<void> {
  outages.push({ from: now() });
  current.killed = true;
  const exited = new Promise((resolve) => current.server.child.once('exit', resolve));
  current.server.child.kill('SIGKILL');
  await exited;
  current.endedAt = now();
  current.grpc.close();
  await rm(dirname(current.server.logFile), { recursive: true, force: true });
}

// ------------------------------------------------------------------ what is counted

type Kind = 'search' | 'manipulate' | 'revert' | 'create-branch' | 'delete-branch' | 'check-paradox' | 'set-anchor' | 'check-anchor' | 'login';
const KINDS: Kind[] = ['search', 'manipulate', 'revert', 'create-branch', 'delete-branch', 'check-paradox', 'set-anchor', 'check-anchor', 'login'];

interface Tally {
  requests: number;
  ok: number;
  /** 4xx answers other than 429 (every request the soak sends is valid, so each one is unexpected). */
  clientErrors: number;
  /** 429: turned away under load with a retry hint (the rate limit is off: password checks queued full); retried. */
  shed: number;
  /** 5xx answers, or no answer, outside any restart: failures. */
  serverErrors: number;
  /** Failed because a kill caught them in flight (sent before it, no answer after it). */
  inFlightAtKill: number;
  /** Refused (no connection, or 503 while starting) between a kill and the next process's readiness. */
  refusedWhileRestarting: number;
  latencies: number[];
}
const tallies = new Map<string, Tally>();
const tally = (face: Face, kind: Kind) => {
  const key = `${face} ${kind}`;
  let found = tallies.get(key);
  if (!found) tallies.set(key, (found = { requests: 0, ok: 0, clientErrors: 0, shed: 0, serverErrors: 0, inFlightAtKill: 0, refusedWhileRestarting: 0, latencies: [] }));
  return found;
};
/** Requests answered 2xx per face per second of the run, for the chart. */
const perSecond = new Map<Face, number[]>(FACES.map((face) => [face, []]));
const failures: string[] = [];

/** 'refused': turned away during a restart before reaching the service (no connection, or 503 while starting). */
type Outcome = 'ok' | 'shed' | 'client-error' | 'server-error' | 'restart' | 'refused';

/** Sends one counted request; a failure during an outage is the restart's, not the service's. */
async function counted(face: Face, kind: Kind, rpc: string, body: Record<string, unknown>, bearer: string | null = KEY): Promise<{ outcome: Outcome; reply: Reply }> {
  const sentAt = now();
  const started = performance.now();
  const reply = await send(face, rpc, body, bearer);
  const doneAt = now();
  const entry = tally(face, kind);
  entry.requests++;
  if (reply.status >= 200 && reply.status < 300) {
    const second = Math.floor(doneAt);
    const counts = perSecond.get(face)!;
    counts[second] = (counts[second] ?? 0) + 1;
    entry.ok++;
    entry.latencies.push(performance.now() - started);
    return { outcome: 'ok', reply };
  }
  if (reply.status === 429) {
    entry.shed++;
    return { outcome: 'shed', reply };
  }
  if (reply.status >= 400 && reply.status < 500 && reply.status !== 499) {
    entry.clientErrors++;
    if (failures.length < 50) failures.push(`${face} ${kind}: ${reply.status} ${JSON.stringify(reply.json)?.slice(0, 300)}`);
    return { outcome: 'client-error', reply };
  }
  const outage = outages.find((o) => sentAt <= (o.to ?? Infinity) && doneAt >= o.from);
  if (outage) {
    if (sentAt < outage.from) entry.inFlightAtKill++;
    else entry.refusedWhileRestarting++;
    // A starting process answers 503 before it runs anything.
    const turnedAway = reply.refused === true || (reply.status === 503 && sentAt >= outage.from);
    return { outcome: turnedAway ? 'refused' : 'restart', reply };
  }
  entry.serverErrors++;
  if (failures.length < 50) failures.push(`${face} ${kind}: ${reply.status || 'no answer'} ${JSON.stringify(reply.json)?.slice(0, 300)} at ${doneAt.toFixed(1)} s`);
  return { outcome: 'server-error', reply };
}

// ------------------------------------------------------------------ the ledger of acknowledged writes

interface CatalogueEvent {
  event_id: string;
  time: string;
  location: string;
}

/** What one event of a branch must look like: the id standing on it, or unknown after a write lost at a kill. */
interface EventState {
  event: CatalogueEvent;
  /** The id expected to stand: the original, or the manipulation's new event. Undefined while uncertain. */
  standing: string | undefined;
  /** While uncertain: the write that went unanswered, and the id that stood before it. */
  unanswered?: { write: 'manipulate' | 'revert'; before: string };
}

interface Branch {
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

interface Ledger {
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
const ledger: Ledger = { branchesCreated: 0, branchesDeleted: 0, manipulations: 0, reverts: 0, anchors: [], unanswered: 0, unansweredApplied: 0, lost: [], verified: 0 };
const branches: Branch[] = [];
let catalogue: CatalogueEvent[] = [];
let locations: string[] = [];

interface ReadBack {
  at: number;
  after: string;
  checked: number;
  lost: number;
  settled: number;
  ms: number;
}
const readBacks: ReadBack[] = [];

/** Every read-back goes over REST, one request at a time per branch, with the load paused. */
async function readBack(after: string): Promise<void> {
  const started = performance.now();
  const at = now();
  let checked = 0;
  let settled = 0;
  const lostBefore = ledger.lost.length;
  const lose = (what: string) => ledger.lost.push(`${what} (read back after ${after})`);
  const queue = branches.filter((branch) => branch.state !== 'deleted');
  const one = async (branch: Branch) => {
    const got = await send('REST', 'tms.v1.TimelineService.GetTimeline', { timeline_id: branch.timeline_id });
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
      const found = await send('REST', 'tms.v1.EventService.SearchEvents', { timeline_id: branch.timeline_id, page_size: 1000, ...(pageToken ? { page_token: pageToken } : {}) });
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
    const got = await send('REST', 'tms.v1.AnchorService.CheckAnchorStability', { anchor_id: anchor.anchor_id });
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
  readBacks.push({ at, after, checked, lost: ledger.lost.length - lostBefore, settled, ms: performance.now() - started });
}

// ------------------------------------------------------------------ the load

let paused = false;
let stopping = false;
let inFlight = 0;
let resume: () => void = () => {};
let resumed = Promise.resolve();

function pause(): void {
  paused = true;
  resumed = new Promise((resolve) => (resume = resolve));
}
async function drained(): Promise<void> {
  while (inFlight > 0) await sleep(5);
}

const isoYear = (year: number) => (year < 0 ? `-${String(-year).padStart(6, '0')}` : year > 9999 ? `+${String(year).padStart(6, '0')}` : String(year).padStart(4, '0'));

/** A time range over the catalogue's centuries: two event times, a start and a duration, or a window around one. */
function timeRange(): string {
  const choice = rand();
  if (choice < 0.4) {
    const [a, b] = [pickOne(catalogue).time, pickOne(catalogue).time].sort((x, y) => Date.parse(x) - Date.parse(y));
    return `${a}/${b}`;
  }
  if (choice < 0.7) return `${pickOne(catalogue).time}/P${1 + Math.floor(rand() * 300)}Y`;
  const year = -500 + Math.floor(rand() * 2525);
  return `${isoYear(year)}-01-01T00:00:00Z/${isoYear(year + 1 + Math.floor(rand() * 80))}-12-31T23:59:59Z`;
}

interface Worker {
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
function pickKind(): Kind {
  let roll = rand() * WEIGHT_TOTAL;
  for (const [kind, weight] of WEIGHTS) if ((roll -= weight) < 0) return kind;
  return 'search';
}

/** A write that got no answer, or a 5xx, may or may not have happened (a 4xx did not). */
const unanswered = (outcome: Outcome) => outcome === 'restart' || outcome === 'server-error';

async function operate(worker: Worker, kind: Kind, face: Face): Promise<void> {
  const own = branches.filter((b) => b.owner === worker.index && b.state === 'live');
  if (own.length === 0 || (kind === 'create-branch' && own.length < MAX_BRANCHES_PER_WORKER)) {
    const parallel = rand() < 0.4;
    const description = `soak branch ${Math.floor(rand() * 1e9)} of worker ${worker.index}`;
    const { outcome, reply } = await counted(face, 'create-branch', parallel ? 'tms.v1.TimelineService.CreateParallelTimeline' : 'tms.v1.TimelineService.CreateTimeline', {
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
      await counted(face, 'search', 'tms.v1.EventService.SearchEvents', {
        location: pickOne(locations),
        time_range: timeRange(),
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
        const { outcome, reply } = await counted(face, 'revert', 'tms.v1.EventService.RevertEvent', { event_id: state.standing!, timeline_id: branch.timeline_id });
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
      const { outcome, reply } = await counted(face, 'manipulate', 'tms.v1.EventService.ManipulateEvent', {
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
      if (own.length < 2) return operate(worker, 'search', face);
      const { outcome } = await counted(face, 'delete-branch', 'tms.v1.TimelineService.DeleteTimeline', { timeline_id: branch.timeline_id });
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
      await counted(face, 'check-paradox', 'tms.v1.ParadoxService.CheckParadox', { timeline_id: rand() < 0.8 ? branch.timeline_id : 'primary' });
      return;
    case 'set-anchor': {
      const nano = rand() < 0.1;
      const environment = { temperature: `${15 + Math.floor(rand() * 15)}°C`, humidity: `${20 + Math.floor(rand() * 60)}%`, em_field_strength: `${(rand() * 2).toFixed(2)}T` };
      const { outcome, reply } = await counted(face, 'set-anchor', 'tms.v1.AnchorService.SetAnchor', {
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
      if (ledger.anchors.length === 0) return operate(worker, 'set-anchor', face);
      await counted(face, 'check-anchor', 'tms.v1.AnchorService.CheckAnchorStability', { anchor_id: pickOne(ledger.anchors).anchor_id });
      return;
    case 'login': {
      let { outcome, reply } = await counted(face, 'login', 'tms.v1.AccountService.Login', { username: LOGIN_USER, password: LOGIN_PASSWORD }, null);
      // As a careful client does: wait as long as the answer says, then try once more.
      for (let tries = 1; outcome === 'shed' && tries < 4; tries++) {
        await sleep(1000 * retryAfterSeconds(reply));
        ({ outcome, reply } = await counted(face, 'login', 'tms.v1.AccountService.Login', { username: LOGIN_USER, password: LOGIN_PASSWORD }, null));
      }
      const token = field(reply.json, 'token');
      if (outcome === 'ok' && token) worker.session = token;
      // The session is then used as the bearer of a search on primary (read scope), as a console would.
      if (worker.session) await counted(face, 'search', 'tms.v1.EventService.SearchEvents', { location: pickOne(locations), time_range: timeRange(), page_size: 20 }, worker.session);
      return;
    }
  }
}

/** With --rate, operations start on a fixed schedule (an open loop) rather than as soon as a worker is free. */
let nextSlot = 0;
async function paced(): Promise<void> {
  if (options.rate === undefined) return;
  const slot = Math.max(now(), nextSlot);
  nextSlot = slot + 1 / options.rate;
  const wait = slot - now();
  if (wait > 0) await sleep(wait * 1000);
}

async function runWorker(worker: Worker): Promise<void> {
  while (!stopping) {
    if (paused) {
      await resumed;
      continue;
    }
    await paced();
    if (paused || stopping) continue;
    const face = pickOne(FACES);
    inFlight++;
    const before = outages.length;
    const restarting = outages.at(-1)?.to === undefined && outages.length > 0;
    try {
      await operate(worker, pickKind(), face);
    } finally {
      inFlight--;
    }
    // While the service restarts, back off as a client retrying would.
    if (restarting || outages.length !== before) await sleep(250);
  }
}

// ------------------------------------------------------------------ samples: memory and loop delay

interface Sample {
  at: number;
  life: number;
  rssMiB: number;
  loopP99Ms?: number;
  /** What the service's caches hold by their own estimate (tms_cache_bytes, all caches): growth they explain is bounded. */
  cacheMiB?: number;
  /** The V8 heap in use (tms_nodejs_heap_size_used_bytes): tells JavaScript objects from native memory. */
  heapMiB?: number;
  /** The V8 heap reserved (tms_nodejs_heap_size_total_bytes): garbage not yet collected counts here, in RSS. */
  heapTotalMiB?: number;
  /** Memory of Buffers and ArrayBuffers outside the heap (tms_nodejs_external_memory_bytes). */
  externalMiB?: number;
  /**
   * The request thread's time on a CPU, and runnable but waiting for one, in the second before the sample
   * (/proc/<pid>/schedstat): the wait is the machine's share of the loop delay, the time on a CPU ours.
   */
  mainRunMs?: number;
  mainWaitMs?: number;
}
const samples: Sample[] = [];

/** Nanoseconds the process's main thread has run, and waited runnable, since it started. */
async function schedstat(pid: number): Promise<{ run: number; wait: number } | undefined> {
  try {
    const [run, wait] = (await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ').map(Number);
    return run === undefined || wait === undefined ? undefined : { run, wait };
  } catch {
    return undefined;
  }
}

async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * The loop-delay p99 (prom-client resets its histogram at every scrape: each value covers the second since the
 * last) and the bytes the caches hold, from one scrape of /metrics.
 */
async function scrape(port: number): Promise<{ loopP99?: number; cacheMiB?: number; heapMiB?: number; heapTotalMiB?: number; externalMiB?: number }> {
  const reply = await new Promise<string | undefined>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', agent, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(res.statusCode === 200 ? text : undefined));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
  if (!reply) return {};
  const match = /^tms_nodejs_eventloop_lag_p99_seconds ([0-9.e+-]+)$/m.exec(reply);
  const caches = [...reply.matchAll(/^tms_cache_bytes\{[^}]*\} ([0-9.e+-]+)$/gm)].map((m) => Number(m[1]));
  const mibOf = (name: string) => {
    const found = new RegExp(`^tms_${name} ([0-9.e+-]+)$`, 'm').exec(reply);
    return found ? Number(found[1]) / 1024 / 1024 : undefined;
  };
  return {
    heapMiB: mibOf('nodejs_heap_size_used_bytes'),
    heapTotalMiB: mibOf('nodejs_heap_size_total_bytes'),
    externalMiB: mibOf('nodejs_external_memory_bytes'),
    loopP99: match ? Number(match[1]) * 1000 : undefined,
    cacheMiB: caches.length ? caches.reduce((a, b) => a + b, 0) / 1024 / 1024 : undefined,
  };
}
const loopP99 = async (port: number) => (await scrape(port)).loopP99;

let lastSched: { pid: number; run: number; wait: number } | undefined;
async function sampleLoop(): Promise<void> {
  while (!stopping) {
    const current = life;
    if (current && current.endedAt === undefined && !paused) {
      const [rss, metrics, sched] = await Promise.all([rssMiB(current.pid), scrape(current.port), schedstat(current.pid)]);
      if (rss !== undefined && life === current && current.endedAt === undefined) {
        const since = lastSched?.pid === current.pid ? lastSched : undefined;
        samples.push({
          at: now(),
          life: current.index,
          rssMiB: rss,
          loopP99Ms: metrics.loopP99,
          cacheMiB: metrics.cacheMiB,
          heapMiB: metrics.heapMiB,
          heapTotalMiB: metrics.heapTotalMiB,
          externalMiB: metrics.externalMiB,
          ...(sched && since && { mainRunMs: (sched.run - since.run) / 1e6, mainWaitMs: (sched.wait - since.wait) / 1e6 }),
        });
      }
      lastSched = sched && { pid: current.pid, ...sched };
    }
    await sleep(1000);
  }
}

// ------------------------------------------------------------------ the run

const dataDir = await mkdtemp(join(tmpdir(), 'tms-soak-'));
console.log(`soak: ${durationS} s, ${concurrency} in flight${options.rate ? ` at most, ${options.rate} operations/s` : ''}, ${killsWanted} kill(s) aimed for, seed ${seed}; data in ${dataDir}`);
let fatal: string | undefined;
/** Loop-delay p99 of the idle service before the load, and the machine's 1-minute load average at both ends. */
const idleLoop: number[] = [];
const loadAverages: number[] = [];
/** The load runs for the duration asked, from when the first process is ready and set up. */
let endAt = durationS;
const kills: { at: number; life: number }[] = [];

try {
  await startLife(dataDir);
  // The catalogue seeded into primary: the events the soak manipulates on its branches, and their places.
  const [all, account] = await Promise.all([
    send('REST', 'tms.v1.EventService.SearchEvents', { page_size: 1000 }),
    send('REST', 'tms.v1.AccountService.CreateAccount', { username: LOGIN_USER, password: LOGIN_PASSWORD, scopes: ['read'] }),
  ]);
  catalogue = ((all.json?.['events'] ?? []) as CatalogueEvent[]).filter((event) => event.location && event.time);
  if (catalogue.length < 50) throw new Error(`expected the seeded catalogue in primary, found ${catalogue.length} events (${all.status})`);
  locations = [...new Set(catalogue.map((event) => event.location.split(',')[0]!.trim()))];
  if (account.status !== 200) throw new Error(`creating the login account answered ${account.status}: ${JSON.stringify(account.json)}`);

  // The loop delay of the idle service first: on a shared machine it is not the 10 ms of a quiet one.
  await loopP99(life!.port);
  for (let i = 0; i < (durationS >= 60 ? 3 : 1); i++) {
    await sleep(1000);
    const p99 = await loopP99(life!.port);
    if (p99 !== undefined) idleLoop.push(p99);
  }
  loadAverages.push(loadavg()[0]!);
  endAt = now() + durationS;
  life!.loadFrom = now();
  const workers = Array.from({ length: concurrency }, (_, index) => runWorker({ index, session: undefined }));
  const sampler = sampleLoop();

  // The restart and the read-back count in the run's time. Kills are spaced by the longest downtime seen so far (at
  // first: the first start, plus time to read back) so that each life can hold warm-up and both memory windows.
  let downtime = Math.max(DOWNTIME_GUESS_S, lives[0]!.readyAt - lives[0]!.spawnedAt + 2);
  for (let k = 0; k < killsWanted; k++) {
    const current = life!;
    const remainingKills = killsWanted - k;
    const slack = endAt - now() - (remainingKills + 1) * minLifeS - remainingKills * downtime;
    const killAt = current.loadFrom + minLifeS + killRand() * Math.max(0, slack) * (2 / (remainingKills + 1));
    // One kill always happens: that is what the soak is for. Later ones only where a whole life still fits after them.
    if (k > 0 && killAt > endAt - minLifeS - downtime) break;
    await watchfulSleep(Math.max(0, killAt - now()) * 1000);
    kills.push({ at: now(), life: current.index });
    console.log(`soak: kill -9 of pid ${current.pid} at ${now().toFixed(1)} s`);
    await kill(current);
    const next = await startLife(dataDir);
    outages.at(-1)!.to = next.readyAt;
    console.log(`soak: pid ${next.pid} ready ${((next.readyAt - kills.at(-1)!.at) * 1000).toFixed(0)} ms after the kill; reading back every acknowledged write`);
    pause();
    await drained();
    await readBack(`restart ${kills.length}`);
    next.loadFrom = now();
    downtime = Math.max(downtime, next.loadFrom - kills.at(-1)!.at);
    paused = false;
    resume();
  }
  await watchfulSleep(Math.max(0, endAt - now()) * 1000);
  pause();
  await drained();
  life!.endedAt = now();
  stopping = true;
  resume();
  await Promise.all([...workers, sampler]);
  loadAverages.push(loadavg()[0]!);
  await readBack('the run');
} catch (error) {
  fatal = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`soak: ${fatal}`);
  stopping = true;
  paused = false;
  resume();
} finally {
  const last = life;
  if (last && !last.killed && exitedOnItsOwn === undefined) {
    last.endedAt ??= now();
    last.grpc.close();
    await last.server.stop();
  }
  if (exitedOnItsOwn !== undefined) fatal = exitedOnItsOwn;
  agent.destroy();
  await rm(dataDir, { recursive: true, force: true });
}

// ------------------------------------------------------------------ figures, checks, report

const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
const mib = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));
const msText = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));

interface LifeFigures {
  life: Life;
  warmRss?: number;
  finalRss?: number;
  growth?: number;
  warmCache?: number;
  finalCache?: number;
  warmHeap?: number;
  finalHeap?: number;
  warmHeapTotal?: number;
  finalHeapTotal?: number;
  warmExternal?: number;
  finalExternal?: number;
  loop: number[];
  /** Per second after warm-up: ms the request thread ran, and ms it waited for a CPU. */
  mainRun: number[];
  mainWait: number[];
}
const lifeFigures: LifeFigures[] = lives.map((l) => {
  const mine = samples.filter((s) => s.life === l.index);
  const end = l.endedAt ?? now();
  const judged = end - l.loadFrom >= warmupS + 2 * windowS;
  const warm = mine.filter((s) => s.at >= l.loadFrom + warmupS && s.at < l.loadFrom + warmupS + windowS).map((s) => s.rssMiB);
  const final = mine.filter((s) => s.at >= end - windowS).map((s) => s.rssMiB);
  const within = (pick: (s: Sample) => number | undefined, from: number, to: number) =>
    mine.filter((s) => s.at >= from && s.at < to && pick(s) !== undefined).map((s) => pick(s)!);
  const warmWindow = (pick: (s: Sample) => number | undefined) => {
    const values = within(pick, l.loadFrom + warmupS, l.loadFrom + warmupS + windowS);
    return judged && values.length ? median(values) : undefined;
  };
  const finalWindow = (pick: (s: Sample) => number | undefined) => {
    const values = within(pick, end - windowS, Infinity);
    return judged && values.length ? median(values) : undefined;
  };
  const warmRss = judged && warm.length ? median(warm) : undefined;
  const finalRss = judged && final.length ? median(final) : undefined;
  const loop = mine.filter((s) => s.at >= l.loadFrom + warmupS && s.loopP99Ms !== undefined).map((s) => s.loopP99Ms!);
  const mainRun = within((s) => s.mainRunMs, l.loadFrom + warmupS, Infinity);
  const mainWait = within((s) => s.mainWaitMs, l.loadFrom + warmupS, Infinity);
  return {
    life: l,
    warmRss,
    finalRss,
    growth: warmRss && finalRss ? finalRss / warmRss - 1 : undefined,
    warmCache: warmWindow((s) => s.cacheMiB),
    finalCache: finalWindow((s) => s.cacheMiB),
    warmHeap: warmWindow((s) => s.heapMiB),
    finalHeap: finalWindow((s) => s.heapMiB),
    warmHeapTotal: warmWindow((s) => s.heapTotalMiB),
    finalHeapTotal: finalWindow((s) => s.heapTotalMiB),
    warmExternal: warmWindow((s) => s.externalMiB),
    finalExternal: finalWindow((s) => s.externalMiB),
    loop,
    mainRun,
    mainWait,
  };
});
const allLoop = lifeFigures.flatMap((f) => f.loop).sort((a, b) => a - b);
const loopMedian = percentile(allLoop, 50);
const loopShare = percentile(allLoop, LOOP_WINDOW_SHARE * 100);
const loopMax = allLoop.at(-1);
const judgedLives = lifeFigures.filter((f) => f.growth !== undefined);
const worstGrowth = judgedLives.length ? Math.max(...judgedLives.map((f) => f.growth!)) : undefined;

const sum = (pick: (t: Tally) => number, filter: (key: string) => boolean = () => true) =>
  [...tallies.entries()].filter(([key]) => filter(key)).reduce((n, [, t]) => n + pick(t), 0);
const requests = sum((t) => t.requests);
const serverErrors = sum((t) => t.serverErrors);
const clientErrors = sum((t) => t.clientErrors);
const shed = sum((t) => t.shed);
const inFlightAtKill = sum((t) => t.inFlightAtKill);
const refused = sum((t) => t.refusedWhileRestarting);
const acknowledgedWrites = ledger.manipulations + ledger.reverts + ledger.branchesCreated + ledger.branchesDeleted + ledger.anchors.length;
const restarts = kills.length;
const firstWarm = lifeFigures.find((f) => f.warmRss !== undefined)?.warmRss ?? samples[0]?.rssMiB;
const lastFinal = [...lifeFigures].reverse().find((f) => f.finalRss !== undefined)?.finalRss ?? samples.at(-1)?.rssMiB;

const checks: { name: string; rule: string; measured: string; met: boolean }[] = [
  { name: 'the run completed', rule: 'every restart came up; every read-back could read', measured: fatal ? fatal.split('\n')[0]! : 'yes', met: !fatal },
  { name: 'at least one kill -9 and restart', rule: '≥ 1', measured: String(restarts), met: restarts >= 1 },
  { name: 'acknowledged writes lost', rule: '0', measured: String(ledger.lost.length), met: ledger.lost.length === 0 },
  { name: '5xx (or no answer) outside restarts', rule: '0', measured: String(serverErrors), met: serverErrors === 0 },
  { name: '4xx (every request sent is valid)', rule: '0', measured: String(clientErrors), met: clientErrors === 0 },
  {
    name: 'RSS growth after warm-up, per process life',
    rule: `median RSS of the last ${windowS.toFixed(0)} s of each life ≤ 1.10 × the median of the ${windowS.toFixed(0)} s after its first ${warmupS.toFixed(0)} s`,
    measured: worstGrowth === undefined ? 'no life long enough' : `worst ${(worstGrowth * 100).toFixed(1)} % (${judgedLives.length} of ${lives.length} lives judged)`,
    met: worstGrowth !== undefined && worstGrowth <= RSS_GROWTH_LIMIT,
  },
  {
    name: 'event-loop delay p99',
    rule: `in ${LOOP_WINDOW_SHARE * 100} % of the 1-s windows after warm-up, p99 ≤ ${LOOP_P99_LIMIT_MS} ms (10 ms of it is the sampling interval)`,
    measured: `${msText(loopShare)} ms in ${LOOP_WINDOW_SHARE * 100} % of windows; median ${msText(loopMedian)} ms, worst ${msText(loopMax)} ms`,
    met: allLoop.length > 0 && loopShare <= LOOP_P99_LIMIT_MS,
  },
];
const passed = checks.every((c) => c.met);

const kindRows = KINDS.map((kind) => {
  const byFace = FACES.map((face) => tallies.get(`${face} ${kind}`));
  const latencies = byFace.flatMap((t) => t?.latencies ?? []).sort((a, b) => a - b);
  const all = (pick: (t: Tally) => number) => byFace.reduce((n, t) => n + (t ? pick(t) : 0), 0);
  return [kind, ...byFace.map((t) => t?.requests ?? 0), all((t) => t.requests), all((t) => t.ok), all((t) => t.clientErrors), all((t) => t.shed), all((t) => t.serverErrors), all((t) => t.inFlightAtKill), all((t) => t.refusedWhileRestarting), msText(percentile(latencies, 50)), msText(percentile(latencies, 99))];
});
const faceTotals = FACES.map((face) => sum((t) => t.requests, (key) => key.startsWith(`${face} `)));
const loadSeconds = lives.reduce((n, l) => n + ((l.endedAt ?? now()) - l.loadFrom), 0);

const lifeRows = lifeFigures.map((f) => [
  f.life.index,
  f.life.pid,
  f.life.readyAt.toFixed(1),
  f.life.loadFrom.toFixed(1),
  f.life.index === 1 ? '—' : ((f.life.readyAt - (kills[f.life.index - 2]?.at ?? f.life.spawnedAt)) * 1000).toFixed(0),
  (f.life.endedAt ?? now()).toFixed(1),
  f.life.killed ? 'kill -9' : 'SIGTERM (end)',
  mib(f.warmRss),
  mib(f.finalRss),
  f.growth === undefined ? 'not judged (too short)' : `${(f.growth * 100).toFixed(1)} %`,
  `${mib(f.warmHeap)} → ${mib(f.finalHeap)}`,
  `${mib(f.warmHeapTotal)} → ${mib(f.finalHeapTotal)}`,
  `${mib(f.warmExternal)} → ${mib(f.finalExternal)}`,
  `${mib(f.warmCache)} → ${mib(f.finalCache)}`,
  msText(percentile([...f.loop].sort((a, b) => a - b), 50)),
  msText(f.loop.length ? Math.max(...f.loop) : NaN),
  `${msText(median(f.mainRun))} / ${msText(median(f.mainWait))}`,
]);

const chartPath = join(reportsDir, 'soak.svg');
const rssSeries: Series = { name: 'RSS (MiB)', points: [] };
const cacheSeries: Series = { name: 'caches, by their estimate (MiB)', points: [] };
const heapSeries: Series = { name: 'V8 heap used (MiB)', points: [] };
for (const l of lives) {
  for (const s of samples.filter((x) => x.life === l.index)) {
    rssSeries.points.push({ x: s.at, y: s.rssMiB });
    cacheSeries.points.push({ x: s.at, y: s.cacheMiB ?? NaN });
    heapSeries.points.push({ x: s.at, y: s.heapMiB ?? NaN });
  }
  heapSeries.points.push({ x: l.endedAt ?? now(), y: NaN });
  rssSeries.points.push({ x: l.endedAt ?? now(), y: NaN });
  cacheSeries.points.push({ x: l.endedAt ?? now(), y: NaN });
}
const seconds = Math.ceil(lives.at(-1)?.endedAt ?? now());
/** Requests completed per second, as a mean over the 5 seconds around each: one-second counts are too jagged to read. */
const smoothed = (counts: number[]) =>
  Array.from({ length: seconds }, (_, second) => {
    let total = 0;
    for (let s = second - 2; s <= second + 2; s++) total += counts[s] ?? 0;
    return { x: second + 0.5, y: total / 5 };
  });
const rateSeries: Series[] = FACES.map((face) => ({ name: `${face} req/s`, points: smoothed(perSecond.get(face)!) }));
const svg = await lineChartSvg({
  title: `Soak: ${durationS < 60 ? `${durationS} s` : `${+(durationS / 60).toFixed(1)} min`}, ${concurrency} requests in flight, kill -9 at the red lines`,
  xTitle: 'seconds since start',
  left: { title: 'MiB', series: [rssSeries, heapSeries, cacheSeries] },
  right: { title: 'requests answered 2xx per second (5-s mean)', series: rateSeries },
  markers: kills.map((k, i) => ({ x: k.at, label: `kill ${i + 1}` })),
});

/** The command that runs this soak again with the same seed: the same kill draws; requests interleave as they will. */
const replay = [
  'npm run soak --',
  options.seconds === undefined ? `--minutes ${options.minutes ?? 1}` : `--seconds ${options.seconds}`,
  `--concurrency ${concurrency}`,
  options.rate ? `--rate ${options.rate}` : '',
  options.kills === undefined ? '' : `--kills ${options.kills}`,
  `--seed ${seed}`,
]
  .filter(Boolean)
  .join(' ');
const report = `## Soak: mixed load with kill -9 and restarts

\`${replay}\` (${machineLine()}). ${options.rate ? `${options.rate} operations started per second, at most ${concurrency}` : concurrency} requests in flight, each a random
operation over a random face (REST, Connect JSON over HTTP/1.1, gRPC with @grpc/grpc-js over h2c) against one tms
process on a LevelDB folder; the process was killed with SIGKILL ${restarts === 1 ? 'once' : `${restarts} times`} at random moments and restarted on
the same folder. Every acknowledged write (manipulation, revert, branch creation and deletion, anchor) was recorded
with what it returned and read back over REST after each restart and at the end, with the load paused: each live
branch's revision must count at least its acknowledged writes, and on it each touched event must stand as the last
acknowledged write left it (the manipulation's new event, or the original after a revert). A write whose answer a kill
swallowed may or may not have happened: the next read-back settles which, and it is counted apart, as are requests
caught in flight by a kill or refused while the next process started. **${passed ? 'Every check met.' : 'A check failed.'}**

![RSS and req/s over time, kills marked](soak.svg)

After each kill (red line) the rate drops to nothing while the next process starts and the read-back runs with the
load paused; that downtime counts in the run's time. The RSS line breaks between process lives.

${table(
  ['check', 'rule', 'measured', 'verdict'],
  checks.map((c) => [c.name, c.rule, c.measured, c.met ? 'met' : '**failed**']),
)}

${table(
  ['figure', 'value'],
  [
    ['requests', `${requests} (REST ${faceTotals[0]}, Connect ${faceTotals[1]}, gRPC ${faceTotals[2]}); ${(sum((t) => t.ok) / Math.max(1, loadSeconds)).toFixed(0)} answered 2xx per second while up`],
    ['writes acknowledged', `${acknowledgedWrites}: ${ledger.manipulations} manipulations, ${ledger.reverts} reverts, ${ledger.branchesCreated} branches created, ${ledger.branchesDeleted} deleted, ${ledger.anchors.length} anchors`],
    ['writes lost', String(ledger.lost.length)],
    ['writes unanswered at a kill', `${ledger.unanswered} (${ledger.unansweredApplied} found applied)`],
    ['5xx outside restarts', String(serverErrors)],
    ['4xx other than 429', String(clientErrors)],
    ['429, turned away with a retry hint and retried after it (password checks queued full)', String(shed)],
    ['caught in flight by a kill', String(inFlightAtKill)],
    ['refused while restarting', String(refused)],
    ['restarts', String(restarts)],
    ['RSS at start (first life, after warm-up) / at end (last life, last window)', `${mib(firstWarm)} / ${mib(lastFinal)} MiB`],
    ['event-loop delay p99 (1-s windows after warm-up)', `median ${msText(loopMedian)} ms, ${LOOP_WINDOW_SHARE * 100} % of windows ≤ ${msText(loopShare)} ms, worst ${msText(loopMax)} ms`],
    ['the request thread, per second after warm-up (median): on a CPU / runnable but waiting for one (/proc/<pid>/schedstat)', `${msText(median(lifeFigures.flatMap((f) => f.mainRun)))} / ${msText(median(lifeFigures.flatMap((f) => f.mainWait)))} ms`],
    ['event-loop delay p99 of the idle service before the load', `${idleLoop.map(msText).join(', ')} ms (10 ms on a quiet machine: the sampling interval)`],
    ['machine load average (1 min) at the start / end of the load', loadAverages.map((x) => x.toFixed(1)).join(' / ')],
  ],
)}

Requests by kind and face (latency of the successful ones):

${table(['kind', 'REST', 'Connect', 'gRPC', 'total', 'ok', '4xx other than 429', '429 (retried)', '5xx outside restarts', 'in flight at a kill', 'refused while restarting', 'p50 ms', 'p99 ms'], kindRows)}

Process lives (times in seconds since the start; RSS from \`/proc/<pid>/status\` every second; loop delay from the
process's \`tms_nodejs_eventloop_lag_p99_seconds\` on \`/metrics\`, which prom-client resets at every scrape, so each
sample covers the second before it):

${table(['life', 'pid', 'ready at', 'load from', 'ready after kill, ms', 'ended at', 'ended by', 'RSS after warm-up MiB', 'RSS at end MiB', 'growth', 'V8 heap used MiB', 'V8 heap reserved MiB', 'Buffers and ArrayBuffers MiB', 'caches MiB (tms_cache_bytes)', 'loop p99 median ms', 'loop p99 worst ms', 'request thread on a CPU / waiting for one, ms per s (median)'], lifeRows)}

Read-backs:

${table(
  ['after', 'at s', 'checked', 'settled (unanswered writes)', 'lost', 'ms'],
  readBacks.map((r) => [r.after, r.at.toFixed(1), r.checked, r.settled, r.lost, r.ms.toFixed(0)]),
)}
${ledger.lost.length ? `\nLost writes:\n\n${ledger.lost.slice(0, 30).map((line) => `- ${line}`).join('\n')}\n` : ''}${failures.length ? `\nFailed requests (first ${failures.length}):\n\n${failures.map((line) => `- ${line}`).join('\n')}\n` : ''}
Memory rule: a process life is judged when it lasted at least ${(warmupS + 2 * windowS).toFixed(0)} s: the median RSS of its last
${windowS.toFixed(0)} s may exceed the median of the ${windowS.toFixed(0)} s after its first ${warmupS.toFixed(0)} s (warm-up) by at most 10 %. Each restart
begins a new life with cold caches, so lives are not compared with each other. Kills are spaced, allowing for the longest
restart and read-back seen so far, so that each life lasts that long; one that still ends shorter (a slower restart) is not judged.
`;
const reportPath = writeReport('soak', report);
writeFileSync(chartPath, svg);
writeFileSync(
  join(reportsDir, 'soak.json'),
  JSON.stringify(
    {
      passed,
      seconds: durationS,
      seed,
      requests,
      byFace: Object.fromEntries(FACES.map((face, i) => [face, faceTotals[i]])),
      writesAcknowledged: acknowledgedWrites,
      writesLost: ledger.lost.length,
      lost: ledger.lost,
      serverErrorsOutsideRestarts: serverErrors,
      clientErrors,
      shed,
      inFlightAtKill,
      refusedWhileRestarting: refused,
      restarts,
      readBacks: readBacks.length,
      rssStartMiB: firstWarm,
      rssEndMiB: lastFinal,
      worstRssGrowth: worstGrowth,
      loopP99MedianMs: loopMedian,
      loopP99WorstMs: loopMax,
      idleLoopP99Ms: idleLoop,
      loadAverages,
      checks,
      failures,
      samples,
    },
    null,
    2,
  ) + '\n',
);
console.log(`soak: wrote ${reportPath} and ${chartPath}`);
for (const c of checks) console.log(`soak: ${c.met ? 'met   ' : 'FAILED'} ${c.name}: ${c.measured}`);
process.exit(passed ? 0 : 1);
