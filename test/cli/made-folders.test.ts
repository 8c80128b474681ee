import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeFolders } from '../../src/cli/made-folders.ts';
import { Refusal, stageFolder } from '../../src/cli/staged-store.ts';
import { openStorage } from '../../src/store/storage.ts';

const exists = (path: string) => stat(path).then(() => true, () => false);

async function inTempFolder(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tms-made-folders-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the folders made are taken away again, deepest first, one already gone passed over', () =>
  inTempFolder(async (dir) => {
    const made = await makeFolders(join(dir, 'a', 'b', 'c'));
    assert.ok(await exists(join(dir, 'a', 'b', 'c')));
    await rm(join(dir, 'a', 'b', 'c'), { recursive: true });
    await made.removeIfEmpty();
    assert.equal(await readdir(dir), [], 'a and b are gone too; the folder that was there stays');
  }));

test('a folder made that is no longer empty stays, and so do the folders above it', () =>
  inTempFolder(async (dir) => {
    const made = await makeFolders(join(dir, 'a', 'b', 'c'));
    await writeFile(join(dir, 'a', 'b', 'someone-else.txt'), 'kept');
    await made.removeIfEmpty();
    assert.not.ok(await exists(join(dir, 'a', 'b', 'c')));
    assert.equal(await readdir(join(dir, 'a', 'b')), ['someone-else.txt']);
  }));

test('folders that were there already are never removed, even when empty', () =>
  inTempFolder(async (dir) => {
    await mkdir(join(dir, 'there'));
    const made = await makeFolders(join(dir, 'there'));
    await made.removeIfEmpty();
    assert.ok(await exists(join(dir, 'there')));
  }));

test('a LevelDB store staged in folders that did not exist leaves none of them when discarded', () =>
  inTempFolder(async (dir) => {
    const staging = await stageFolder(join(dir, 'absent', 'deeper', 'store'), { verb: 'restore', undone: 'nothing was restored', folderFlag: '--data-dir' });
    const storage = await openStorage(staging.spec);
    await storage.close();
    await staging.discard();
    assert.equal(await readdir(dir), []);
  }));

const RESTORE = { verb: 'restore', undone: 'nothing was restored', folderFlag: '--data-dir' };

/** Writes a store with one timeline besides primary through the staging, and puts it in place. */
async function stagedStore(target: string): Promise<void> {
  const staging = await stageFolder(target, RESTORE);
  const storage = await openStorage(staging.spec);
  await storage.timelines.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'staged', variation: '', owner: 'test' });
  await storage.close();
  await staging.putInPlace();
}

async function timelinesIn(dataDir: string): Promise<string[]> {
  const storage = await openStorage({ dataDir, create: false });
  try {
    return (await storage.timelines.listTimelines()).map((timeline) => timeline.description).sort();
  } finally {
    await storage.close();
  }
}

test('an empty target folder that exists is kept, with its mode: the store is moved into it', () =>
  inTempFolder(async (dir) => {
    const target = join(dir, 'mounted');
    await mkdir(target);
    await chmod(target, 0o700);
    await stagedStore(target);
    assert.is((await stat(target)).mode & 0o777, 0o700, 'its mode is the one it had');
    assert.ok((await readdir(target)).includes('CURRENT'));
    assert.not.ok((await readdir(target)).some((name) => name.startsWith('.tms-staging')), 'nothing of the staging is left');
    assert.ok((await timelinesIn(target)).includes('staged'));
    assert.equal(await readdir(dir), ['mounted'], 'nothing was written beside it');
  }));

test('a target that is a link to an empty folder stays a link, and the folder it names holds the store', () =>
  inTempFolder(async (dir) => {
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'link'));
    await stagedStore(join(dir, 'link'));
    assert.ok((await lstat(join(dir, 'link'))).isSymbolicLink());
    assert.ok((await timelinesIn(join(dir, 'real'))).includes('staged'));
  }));

test('a move into an existing target that fails part way is taken back whole when discarded', () =>
  inTempFolder(async (dir) => {
    const target = join(dir, 'empty');
    await mkdir(target);
    const staging = await stageFolder(target, RESTORE);
    const storage = await openStorage(staging.spec);
    await storage.close();
    // CURRENT moves last; a folder in its place makes the move fail after every other file has moved.
    await mkdir(join(target, 'CURRENT'));
    const failed = await staging.putInPlace().then(() => undefined, (error: unknown) => error);
    assert.ok(failed, 'the move failed');
    assert.ok((await readdir(target)).length > 2, 'after moving files');
    await staging.discard();
    assert.equal(await readdir(target), ['CURRENT'], 'only what was there before is left');
  }));

test('a staging folder left inside a target by a cut-short restore is named, with how to remove it', () =>
  inTempFolder(async (dir) => {
    const target = join(dir, 'target');
    await mkdir(join(target, '.tms-staging-4242'), { recursive: true });
    const refused = await stageFolder(target, RESTORE).catch((error: unknown) => error);
    assert.instance(refused, Refusal);
    assert.is(
      (refused as Error).message,
      `the target folder ${target} holds .tms-staging-4242, left by a restore cut short; remove it (rm -r ${join(target, '.tms-staging-4242')}) and restore again (nothing was written)`,
    );
  }));

test('a target whose path runs through a file, or an empty one, is refused before anything is written', () =>
  inTempFolder(async (dir) => {
    await writeFile(join(dir, 'file'), 'x');
    const throughFile = await stageFolder(join(dir, 'file', 'sub'), RESTORE).catch((error: unknown) => error);
    assert.instance(throughFile, Refusal);
    assert.is(
      (throughFile as Error).message,
      `cannot write the folder ${join(dir, 'file', 'sub')}: a part of its path is a file, not a folder; give a new or empty folder you can write with --data-dir (nothing was restored)`,
    );
    const blank = await stageFolder('', RESTORE).catch((error: unknown) => error);
    assert.instance(blank, Refusal);
    assert.is((blank as Error).message, '--data-dir is empty; give a new or empty folder (nothing was restored)');
    assert.equal((await readdir(dir)).sort(), ['file']);
  }));

test.run();
