/** The soak's command line, and what follows from it: the run's length, the warm-up and memory windows, how many kills. */
import { Command, InvalidArgumentError } from 'commander';

export interface SoakOptions {
  minutes?: number;
  seconds?: number;
  concurrency: number;
  rate?: number;
  kills?: number;
  seed?: number;
}

const number = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return parsed;
};
export const options = new Command()
  .name('npm run soak --')
  .description('Mixed load over REST, Connect and gRPC against a real tms process, killed with SIGKILL and restarted at random moments.')
  .option('--minutes <n>', 'how long to run (fractions allowed)', number('--minutes'))
  .option('--seconds <n>', 'how long to run, in seconds (instead of --minutes)', number('--seconds'))
  .option('--concurrency <n>', 'requests in flight', number('--concurrency'), 12)
  .option('--rate <n>', 'operations started per second, across all workers (default: as fast as they complete)', number('--rate'))
  .option('--kills <n>', 'SIGKILLs to aim for (default: one per 40 s); fewer when the lives between them could not hold the warm-up and both memory windows, but always one', number('--kills'))
  .option('--seed <n>', 'seed of the random choices (kill moments, operations, faces)', number('--seed'))
  .parse()
  .opts<SoakOptions>();

export const durationS = options.seconds ?? (options.minutes ?? 1) * 60;
export const concurrency = Math.round(options.concurrency);
export const seed = Math.round(options.seed ?? Date.now() % 1_000_000);
/**
 * The first part of each process's life (JIT, the heap growing to its working size, caches filling to their
 * budgets) is left out of the memory and loop-delay figures: a tenth of the run, from 3 s to 5 minutes, because
 * the heap and caches of a long run take minutes to settle and a short run has only seconds.
 */
export const warmupS = Math.min(300, Math.max(3, durationS * 0.1));
/**
 * The memory windows compared within one process life: right after warm-up, and its last seconds. Long runs get
 * longer windows (up to a minute), so that each median spans several collections of the heap's sawtooth.
 */
export const windowS = Math.min(60, Math.max(2, durationS * 0.05));
/** A life must hold warm-up and both windows for its memory to be judged, and the kills are spaced so that each does. */
export const minLifeS = warmupS + 2 * windowS + 1;
/** A first guess of the time from a kill until the load resumes (restart, then read-back); the run then measures it. */
export const DOWNTIME_GUESS_S = 5;
const maxKills = Math.max(1, Math.floor((durationS - minLifeS) / (minLifeS + DOWNTIME_GUESS_S)));
export const killsWanted = Math.min(options.kills === undefined ? Math.max(1, Math.floor(durationS / 40)) : Math.round(options.kills), maxKills);
