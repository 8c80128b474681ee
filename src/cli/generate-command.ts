import { Command } from 'commander';
import { Level } from 'level';
import { SingleBar, Presets } from 'cli-progress';
import { LevelTimelineStore } from '../store/level-store.ts';
import { generateSyntheticEvents } from '../synthetic/generator.ts';

export function generateCommand(): Command {
  return new Command('generate')
    .description('load synthetic events (a causal DAG) into a timeline, for benchmarks; the server must be stopped')
    .option('--events <n>', 'how many events', '1000000')
    .option('--places <n>', 'how many distinct places', '1000')
    .option('--seed <n>', 'PRNG seed (same seed, same events)', '1')
    .option('--timeline <id>', 'timeline to load into', 'primary')
    .option('--data-dir <dir>', 'LevelDB folder (env TMS_DATA_DIR)', process.env['TMS_DATA_DIR'] ?? './data')
    .action(async (options: { events: string; places: string; seed: string; timeline: string; dataDir: string }) => {
      const events = Number(options.events);
      const places = Number(options.places);
      if (!Number.isInteger(events) || events < 1) throw new Error(`--events must be a whole number ≥ 1, got ${options.events}`);
      if (!Number.isInteger(places) || places < 1) throw new Error(`--places must be a whole number ≥ 1, got ${options.places}`);
      const db = new Level<Uint8Array, Uint8Array>(options.dataDir, { keyEncoding: 'view', valueEncoding: 'view' });
      await db.open();
      const store = new LevelTimelineStore(db, { primaryOwner: '' });
      await store.open();
      const bar = new SingleBar({ stream: process.stderr, etaBuffer: 50 }, Presets.shades_classic);
      bar.start(events, 0);
      const started = performance.now();
      const loaded = await store.bulkLoad(options.timeline, generateSyntheticEvents({ events, places, seed: Number(options.seed) }), {
        onProgress: (n) => bar.update(n),
      });
      bar.stop();
      await store.close();
      await db.close();
      console.log(`loaded ${loaded} events into ${options.timeline} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    });
}
