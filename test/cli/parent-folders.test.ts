import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeParentFolders } from '../../src/cli/parent-folders.ts';

const exists = (path: string) => stat(path).then(() => true, () => false);

test('the folders made above a path are taken away again, deepest first', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-parent-folders-'));
  try {
    const made = await makeParentFolders(join(dir, 'a', 'b', 'c', 'out.tmsbackup'));
    assert.ok(await exists(join(dir, 'a', 'b', 'c')));
    await made.removeIfEmpty();
    assert.equal(await readdir(dir), [], 'a, b and c are gone; the folder that was there stays');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a folder made that is no longer empty stays, and so do the folders above it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-parent-folders-'));
  try {
    const made = await makeParentFolders(join(dir, 'a', 'b', 'c', 'out.tmsbackup'));
    await writeFile(join(dir, 'a', 'b', 'someone-else.txt'), 'kept');
    await made.removeIfEmpty();
    assert.not.ok(await exists(join(dir, 'a', 'b', 'c')));
    assert.equal(await readdir(join(dir, 'a', 'b')), ['someone-else.txt']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('folders that were there already are never removed, even when empty', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-parent-folders-'));
  try {
    await mkdir(join(dir, 'there'));
    const made = await makeParentFolders(join(dir, 'there', 'out.tmsbackup'));
    await made.removeIfEmpty();
    assert.ok(await exists(join(dir, 'there')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
