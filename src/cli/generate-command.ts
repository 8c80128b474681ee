import { mkdir, stat } from 'node:fs/promises';
import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { PRIMARY_TIMELINE_ID } from '../domain/timelines.ts';
import type { Storage } from '../store/storage.ts';
import { openForCommand } from './staged-store.ts';
import { SYNTHETIC_DEFAULTS, generateSyntheticEvents, syntheticEventId } from '../synthetic/generator.ts';
import { undoneOnInterrupt } from './interrupt.ts';

export interface GenerateOptions {
  events: number;
  places: number;
  seed: number;
  maxCauses: number;
  timeline: string;
  dataDir: string;
  batchSize?: number;
  progress: boolean;
}

const wholeNumber =
  (flag: string, minimum: number) =>
  (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < minimum) {
      throw new InvalidArgumentError(`${flag} must be a whole number ≥ ${minimum}, got "${text}"`);
    }
    return value;
  };

/** `tms generate`: bulk-loads a synthetic causal DAG into a timeline, for benchmarks. */
export function generateCommand(): Command {
  return new Command('generate')
    .description('load synthetic events (a causal DAG in time order) into a timeline, for benchmarks; stop the server first')
    .option('--events <n>', 'how many events', wholeNumber('--events', 1), 1_000_000)
    .option('--places <n>', 'how many distinct places ("Place 7, Region 0" ...)', wholeNumber('--places', 1), 1000)
    .option('--seed <n>', 'PRNG seed: the same seed gives the same events', wholeNumber('--seed', 0), SYNTHETIC_DEFAULTS.seed)
    .option('--max-causes <n>', 'each event gets 0..n earlier causes, n/2 on average', wholeNumber('--max-causes', 0), SYNTHETIC_DEFAULTS.maxCauses)
    .option('--timeline <id>', 'timeline to load into (nothing may branch from it)', PRIMARY_TIMELINE_ID)
    .option('--data-dir <dir>', 'LevelDB folder (env TMS_DATA_DIR)', process.env['TMS_DATA_DIR'] ?? './data')
    .option('--batch-size <n>', 'events per LevelDB batch (store default when omitted)', wholeNumber('--batch-size', 1))
    .option('--no-progress', 'do not draw a progress bar on stderr')
    .action(async (options: GenerateOptions, command: Command) => {
      let result: { loaded: number; seconds: number };
      try {
        result = await runGenerate(options);
      } catch (error) {
        command.error(`error: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
      const { loaded, seconds } = result;
      console.log(
        `loaded ${loaded} events into timeline "${options.timeline}" in ${seconds.toFixed(1)} s ` +
          `(${Math.round(loaded / Math.max(seconds, 1e-9))} events/s)`,
      );
    });
}

/**
 * Synthetic events have the same ids in every load (`syn-000000000` on), so a second load into one timeline would
 * overwrite the first by id, and mix two sets whose causes no longer fit together.
 */
async function refuseSecondLoad(store: Storage['timelines'], options: GenerateOptions): Promise<void> {
  const first = await store.getEvent(options.timeline, syntheticEventId(0)).catch(() => undefined);
  if (!first) return;
  const events = (await store.getTimeline(options.timeline))?.event_count ?? 0;
  throw new Error(
    `timeline "${options.timeline}" already holds synthetic events from an earlier generate (${events} events in all); ` +
      `a second load would overwrite them by id and mix the two sets: generate into a new folder (--data-dir)`,
  );
}

export async function runGenerate(options: GenerateOptions): Promise<{ loaded: number; seconds: number }> {
  const events = generateSyntheticEvents({
    events: options.events,
    places: options.places,
    seed: options.seed,
    maxCauses: options.maxCauses,
  });
  // A new store holds primary alone: another timeline is refused before the folder is made.
  if (options.timeline !== PRIMARY_TIMELINE_ID && !(await stat(options.dataDir).catch(() => undefined))) {
    throw new Error(`timeline "${options.timeline}" not found: ${options.dataDir} holds no store yet, and a new store has only "${PRIMARY_TIMELINE_ID}"`);
  }
  await mkdir(options.dataDir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot create the data folder ${options.dataDir} (${error.code ?? error.message}); give a folder you can write with --data-dir`);
  });
  // primary belongs to no account, as when the server creates it.
  const storage = await openForCommand({ dataDir: options.dataDir }, options.dataDir, 'stop it first');
  const store = storage.timelines;
  try {
    await refuseSecondLoad(store, options);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const bar = options.progress
    ? new SingleBar({ stream: process.stderr, hideCursor: true, etaBuffer: 50, format: 'generate [{bar}] {percentage}% | {value}/{total} events | {eta_formatted} left' }, Presets.shades_classic)
    : undefined;
  try {
    bar?.start(options.events, 0);
    const started = performance.now();
    let written = 0;
    const loaded = await undoneOnInterrupt(
      async () => bar?.stop(),
      () =>
        `${written} of ${options.events} events were loaded into "${options.timeline}", and the batch under way may have landed too; ` +
        'they stay there (a load keeps the batches it wrote): generate into a new folder to have them all',
      () =>
        store.bulkLoad(options.timeline, events, {
          ...(options.batchSize ? { batchSize: options.batchSize } : {}),
          onProgress: (count) => {
            written = count;
            bar?.update(count);
          },
        }),
    );
    bar?.update(loaded);
    return { loaded, seconds: (performance.now() - started) / 1000 };
  } finally {
    bar?.stop();
    await storage.close();
  }
}
