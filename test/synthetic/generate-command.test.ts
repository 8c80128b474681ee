import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Level } from 'level';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCommand } from '../../src/cli/generate-command.ts';
import { LevelTimelineStore, locationWords } from '../../src/store/index.ts';
import { generateSyntheticEvents, syntheticPlaceName } from '../../src/synthetic/generator.ts';
import { formatInstant } from '../../src/time/index.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';
import { refusal, tms } from '../support/cli.ts';

const root = new URL('../../', import.meta.url).pathname;
const mainPath = join(root, 'src/cli/main.ts');
// The end-to-end path runs the real `tms` entry point once it exists and wires the command.
const viaMain = existsSync(mainPath) && readFileSync(mainPath, 'utf8').includes('generateCommand');

async function runGenerate(args: string[]): Promise<string> {
  if (viaMain) {
    const { stdout } = await promisify(execFile)(process.execPath, [...RUN_TYPESCRIPT, mainPath, 'generate', ...args], { cwd: root });
    return stdout;
  }
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => lines.push(parts.join(' '));
  try {
    await generateCommand().exitOverride().parseAsync(args, { from: 'user' });
  } finally {
    console.log = log;
  }
  return lines.join('\n');
}

async function openStore(dir: string): Promise<{ store: LevelTimelineStore; close(): Promise<void> }> {
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const store = new LevelTimelineStore(db, { primaryOwner: '' });
  await store.open();
  return { store, close: async () => (await store.close(), await db.close()) };
}

test('tms generate bulk-loads the seeded events into the data folder and reports count and time', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-generate-'));
  try {
    const out = await runGenerate(['--events', '3000', '--places', '20', '--seed', '7', '--data-dir', join(dir, 'data'), '--batch-size', '500', '--no-progress']);
    assert.match(out, /loaded 3000 events into timeline "primary" in \d+\.\d s \(\d+ events\/s\)/);

    const expected = [...generateSyntheticEvents({ events: 3000, places: 20, seed: 7 })];
    const { store, close } = await openStore(join(dir, 'data'));
    try {
      const primary = await store.getTimeline('primary');
      assert.is(primary!.event_count, 3000);
      for (const index of [0, 1234, 2999]) {
        const stored = await store.getEvent('primary', expected[index]!.event_id);
        assert.ok(stored, expected[index]!.event_id);
        assert.is(stored!.time, formatInstant(expected[index]!.time));
        assert.is(stored!.location, expected[index]!.location);
        assert.equal(stored!.causes, expected[index]!.causes);
      }
      const place = syntheticPlaceName(3);
      const page = await store.search('primary', { words: locationWords(place), pageSize: 1000 });
      assert.is(page.events.length, expected.filter((event) => event.location === place).length);
      const graph = await store.readCausalGraph('primary');
      assert.is(graph.graph.causeTargets.length, expected.reduce((sum, event) => sum + event.causes.length, 0));
    } finally {
      await close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('bad arguments are refused with the flag named, before anything is opened', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'tms-generate-refused-'));
  const neverCreated = join(parent, 'never-created');
  for (const [args, message] of [
    [['--events', '0'], /--events must be a whole number ≥ 1, got "0"/],
    [['--places', 'many'], /--places must be a whole number ≥ 1, got "many"/],
    [['--max-causes', '-1'], /--max-causes must be a whole number ≥ 0/],
  ] as const) {
    let stderr = '';
    const command = generateCommand()
      .exitOverride()
      .configureOutput({ writeErr: (text) => (stderr += text) });
    await command.parseAsync([...args, '--data-dir', neverCreated], { from: 'user' }).then(
      () => assert.unreachable('accepted'),
      (error: Error) => assert.match(error.message, message),
    );
    assert.match(stderr, message);
    assert.not.ok(existsSync(neverCreated));
  }
  await rm(parent, { recursive: true, force: true });
});

test('a locked data folder is reported as such', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-generate-locked-'));
  const holder = await openStore(dir);
  try {
    await generateCommand()
      .exitOverride()
      .parseAsync(['--events', '10', '--data-dir', dir, '--no-progress'], { from: 'user' })
      .then(
        () => assert.unreachable('a second writer was let in'),
        (error: Error) => assert.match(error.message, /^error: the data folder .* is in use by a running tms \(its LevelDB lock is held\); stop it first$/),
      );
  } finally {
    await holder.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a refused generate says why in one line: a timeline not there (which makes no folder), a second load', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'tms-generate-refused-'));
  try {
    const fresh = join(parent, 'fresh');
    const missing = await tms(['generate', '--events', '10', '--timeline', 'nosuch', '--data-dir', fresh, '--no-progress']);
    assert.match(refusal(missing), /^error: timeline "nosuch" not found: .* holds no store yet, and a new store has only "primary"$/);
    assert.not.ok(existsSync(fresh), 'no folder made');

    const existing = join(parent, 'existing');
    assert.is((await tms(['generate', '--events', '10', '--data-dir', existing, '--no-progress'])).code, 0);
    const again = await tms(['generate', '--events', '5', '--seed', '2', '--data-dir', existing, '--no-progress']);
    assert.is(
      refusal(again),
      'error: timeline "primary" already holds synthetic events from an earlier generate (10 events in all); a second load would overwrite them by id and mix the two sets: generate into a new folder (--data-dir)',
    );
    const notThere = await tms(['generate', '--events', '10', '--timeline', 'nosuch', '--data-dir', existing, '--no-progress']);
    assert.match(refusal(notThere), /^error: timeline "nosuch" not found$/);

    const holder = await openStore(existing);
    try {
      const locked = await tms(['generate', '--events', '10', '--data-dir', existing, '--no-progress']);
      assert.match(refusal(locked), /^error: the data folder .* is in use by a running tms \(its LevelDB lock is held\); stop it first$/);
    } finally {
      await holder.close();
    }
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test.run();
