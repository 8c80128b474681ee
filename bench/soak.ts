/**
 * Soak and faults: a mixed load against a real tms process over REST, Connect and gRPC at once (searches over
 * many time ranges, manipulations and reverts, branch creation and deletion, paradox and anchor checks,
 * logins), while the process is killed with SIGKILL at random moments and restarted on the same LevelDB
 * folder. Every acknowledged write is recorded with what it returned and read back after each restart and at
 * the end. Checks: no acknowledged write lost, no 5xx outside restarts (requests in flight at a kill, or
 * refused while the service restarts, are counted apart), resident memory flat after warm-up, event-loop
 * delay p99 low. Writes bench/reports/soak.md, soak.svg and soak.json (BENCH_REPORTS_DIR moves them); exits
 * with 1 when a check fails. This file runs the soak (the lives, the kills, the workers, the read-backs); its parts
 * are in bench/soak/.
 *
 *   npm run soak -- --minutes 2
 *   npm run soak -- --seconds 30 --concurrency 8 --kills 1 --seed 7
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mulberry32 } from '../src/synthetic/prng.ts';
import { concurrency, DOWNTIME_GUESS_S, durationS, killsWanted, minLifeS, options, seed, warmupS, windowS } from './soak/options.ts';
import { send } from './soak/faces.ts';
import { newRunState } from './soak/run-state.ts';
import { kill, startLife, watchfulSleep } from './soak/lives.ts';
import { readBack, type CatalogueEvent } from './soak/ledger.ts';
import { LOGIN_PASSWORD, LOGIN_USER } from './soak/operations.ts';
import { drained, pacer, pause, runWorker } from './soak/workers.ts';
import { sampleLoop } from './soak/sampler.ts';
import { loopP99 } from './soak/process-samples.ts';
import { soakFigures } from './soak/figures.ts';
import { writeSoakReport } from './soak/report.ts';

const run = newRunState(seed, concurrency);
const { now, kills } = run;
/** The kill moments draw from their own sequence, so a seed gives the same ones whatever the requests did. */
const killRand = mulberry32(seed ^ 0x5eed);

const dataDir = await mkdtemp(join(tmpdir(), 'tms-soak-'));
console.log(`soak: ${durationS} s, ${concurrency} in flight${options.rate ? ` at most, ${options.rate} operations/s` : ''}, ${killsWanted} kill(s) aimed for, seed ${seed}; data in ${dataDir}`);
let fatal: string | undefined;
/** The load runs for the duration asked, from when the first process is ready and set up. */
let endAt = durationS;

try {
  await startLife(run, dataDir);
  // The catalogue seeded into primary: the events the soak manipulates on its branches, and their places.
  const [all, account] = await Promise.all([
    send(run, 'REST', 'tms.v1.EventService.SearchEvents', { page_size: 1000 }),
    send(run, 'REST', 'tms.v1.AccountService.CreateAccount', { username: LOGIN_USER, password: LOGIN_PASSWORD, scopes: ['read'] }),
  ]);
  run.catalogue = ((all.json?.['events'] ?? []) as CatalogueEvent[]).filter((event) => event.location && event.time);
  if (run.catalogue.length < 50) throw new Error(`expected the seeded catalogue in primary, found ${run.catalogue.length} events (${all.status})`);
  run.locations = [...new Set(run.catalogue.map((event) => event.location.split(',')[0]!.trim()))];
  if (account.status !== 200) throw new Error(`creating the login account answered ${account.status}: ${JSON.stringify(account.json)}`);

  // The loop delay of the idle service first: on a shared machine it is not the 10 ms of a quiet one.
  await loopP99(run.agent, run.life!.port);
  for (let i = 0; i < (durationS >= 60 ? 3 : 1); i++) {
    await sleep(1000);
    const p99 = await loopP99(run.agent, run.life!.port);
    if (p99 !== undefined) run.idleLoop.push(p99);
  }
  run.loadAverages.push(loadavg()[0]!);
  endAt = now() + durationS;
  run.life!.loadFrom = now();
  const paced = pacer(now, options.rate);
  const workers = Array.from({ length: concurrency }, (_, index) => runWorker(run, { index, session: undefined }, paced));
  const sampler = sampleLoop(run);

  // The restart and the read-back count in the run's time. Kills are spaced by the longest downtime seen so far (at
  // first: the first start, plus time to read back) so that each life can hold warm-up and both memory windows.
  let downtime = Math.max(DOWNTIME_GUESS_S, run.lives[0]!.readyAt - run.lives[0]!.spawnedAt + 2);
  for (let k = 0; k < killsWanted; k++) {
    const current = run.life!;
    const remainingKills = killsWanted - k;
    const slack = endAt - now() - (remainingKills + 1) * minLifeS - remainingKills * downtime;
    const killAt = current.loadFrom + minLifeS + killRand() * Math.max(0, slack) * (2 / (remainingKills + 1));
    // One kill always happens: that is what the soak is for. Later ones only where a whole life still fits after them.
    if (k > 0 && killAt > endAt - minLifeS - downtime) break;
    await watchfulSleep(run, Math.max(0, killAt - now()) * 1000);
    kills.push({ at: now(), life: current.index });
    console.log(`soak: kill -9 of pid ${current.pid} at ${now().toFixed(1)} s`);
    await kill(run, current);
    const next = await startLife(run, dataDir);
    run.outages.at(-1)!.to = next.readyAt;
    console.log(`soak: pid ${next.pid} ready ${((next.readyAt - kills.at(-1)!.at) * 1000).toFixed(0)} ms after the kill; reading back every acknowledged write`);
    pause(run);
    await drained(run);
    await readBack(run, `restart ${kills.length}`);
    next.loadFrom = now();
    downtime = Math.max(downtime, next.loadFrom - kills.at(-1)!.at);
    run.paused = false;
    run.resume();
  }
  await watchfulSleep(run, Math.max(0, endAt - now()) * 1000);
  pause(run);
  await drained(run);
  run.life!.endedAt = now();
  run.stopping = true;
  run.resume();
  await Promise.all([...workers, sampler]);
  run.loadAverages.push(loadavg()[0]!);
  await readBack(run, 'the run');
} catch (error) {
  fatal = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`soak: ${fatal}`);
  run.stopping = true;
  run.paused = false;
  run.resume();
} finally {
  const last = run.life;
  if (last && !last.killed && run.exitedOnItsOwn === undefined) {
    last.endedAt ??= now();
    last.grpc.close();
    await last.server.stop();
  }
  if (run.exitedOnItsOwn !== undefined) fatal = run.exitedOnItsOwn;
  run.agent.destroy();
  await rm(dataDir, { recursive: true, force: true });
}

const figures = soakFigures(run, fatal, { warmupS, windowS });
const { reportPath, chartPath } = await writeSoakReport(run, figures, { options, durationS, concurrency, seed, warmupS, windowS });
console.log(`soak: wrote ${reportPath} and ${chartPath}`);
for (const c of figures.checks) console.log(`soak: ${c.met ? 'met   ' : 'FAILED'} ${c.name}: ${c.measured}`);
process.exit(figures.passed ? 0 : 1);
