import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeFolders } from '../../src/cli/made-folders.ts';
import { stageFolder } from '../../src/cli/staged-store.ts';
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

test.run();
