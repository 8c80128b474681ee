// Runs the request fuzzer (test/fuzz/requests.property.test.ts) for as long as asked, with a new seed
// unless one is given: npm run fuzz -- --minutes 30 [--seed 1234]. A failure prints its seed and case.
import { spawnSync } from 'node:child_process';
import { Command, Option } from 'commander';
import { RUN_TYPESCRIPT } from '../src/typescript/node-options.ts';

const options = new Command('fuzz')
  .addOption(new Option('--minutes <n>', 'how long to run').default('5').argParser(Number))
  .addOption(new Option('--seed <n>', 'fast-check seed (default: a new one)').argParser(Number))
  .parse()
  .opts<{ minutes: number; seed?: number }>();

const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
console.log(`fuzzing for ${options.minutes} min with seed ${seed}`);
const run = spawnSync(process.execPath, [...RUN_TYPESCRIPT, 'test/fuzz/requests.property.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SECONDS: String(Math.round(options.minutes * 60)), FUZZ_SEED: String(seed) },
});
process.exitCode = run.status ?? 1;
