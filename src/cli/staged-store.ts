/**
 * Opening stores for the offline commands, and writing a whole store where it becomes the target only once it is
 * complete and checked (`tms restore`, `tms copy-store`): a LevelDB store is written in a folder beside or inside the
 * target and moved into place; a PostgreSQL store is written in a schema of its own and swapped in in one transaction.
 */
import { constants, existsSync } from 'node:fs';
import { access, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isEmptyStore } from '../store/copy-store.ts';
import {
  createStagingSchema, dropStagingSchema, dropStagingSql, newStagingSchemaName, stagingSchemas, swapIn, targetClocks, TargetChangedError,
} from '../store/postgres/staging-schema.ts';
import { openStorage, StoreOpenError, type Storage, type StorageOptions } from '../store/storage.ts';
import { makeFolders } from './made-folders.ts';

/** An expected failure: one line naming the cause and the fix, exit code 1, no stack trace. */
export class Refusal extends Error {}

/** Opening a store for the commands, with the folder-locked case said plainly. */
export async function openForCommand(options: StorageOptions, where: string, whenLocked: string): Promise<Storage> {
  try {
    return await openStorage({ ...options, primaryOwner: '' });
  } catch (error) {
    if (error instanceof StoreOpenError) throw new Refusal(error.message);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new Refusal(`the data folder ${where} is in use by a running tms (its LevelDB lock is held); ${whenLocked}`);
    if ((error as { code?: string }).code === 'LEVEL_DATABASE_NOT_OPEN') throw new Refusal(`cannot open the store in ${where} (${cause?.message ?? (error as Error).message})`);
    throw error;
  }
}

/** What a command writes, as its refusals say it: `restore`, with the flag that names a folder target. */
export interface StagedWrite {
  verb: string;
  /** What was not done when it fails, e.g. "nothing was restored". */
  undone: string;
  folderFlag: string;
}

/** The folder a store is staged in inside an existing target, `.tms-staging-<pid>`. */
const STAGING_PREFIX = '.tms-staging-';

/** A LevelDB target: a folder that does not exist yet, or an empty one. */
export async function assertNewFolder(dir: string, write: StagedWrite): Promise<void> {
  if (dir.trim() === '') throw new Refusal(`${write.folderFlag} is empty; give a new or empty folder (${write.undone})`);
  const found = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw cannotWrite(dir, error, write);
  });
  if (!found) {
    // Said now, not after the work: the folder would be made in the nearest folder that exists.
    await access(nearestExisting(resolve(dir)), constants.W_OK).catch((error: unknown) => {
      throw cannotWrite(dir, error, write);
    });
    return;
  }
  if (!found.isDirectory()) throw new Refusal(`${dir} is a file, not a folder; give a new or empty folder with ${write.folderFlag}`);
  const entries = await readdir(dir);
  const leftOver = entries.filter((name) => name.startsWith(STAGING_PREFIX));
  if (leftOver.length > 0 && leftOver.length === entries.length) {
    throw new Refusal(`the target folder ${dir} holds ${leftOver.join(', ')}, left by a ${write.verb} cut short; remove it (rm -r ${join(dir, leftOver[0]!)}) and ${write.verb} again (nothing was written)`);
  }
  if (entries.length > 0) throw new Refusal(`the target folder ${dir} is not empty; ${write.verb} into a new or empty folder (nothing was written)`);
  await access(dir, constants.W_OK).catch((error: unknown) => {
    throw cannotWrite(dir, error, write);
  });
}

function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/** Where a store is written before the target has it: `spec` opens it, `putInPlace` makes it the target, `discard` drops it. */
export interface Staging {
  spec: StorageOptions;
  putInPlace(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * LevelDB: a new target is written as a folder beside it, renamed into place. An empty target that exists is kept,
 * as it may be a mount point, a link, or have an owner and mode of its own: the store is written in a folder inside
 * it, whose files are then moved up, LevelDB's CURRENT (which names the rest) last.
 */
export async function stageFolder(dataDir: string, write: StagedWrite): Promise<Staging> {
  await assertNewFolder(dataDir, write);
  const target = resolve(dataDir);
  if (await stat(target).catch(() => undefined)) return stageInside(target, write);
  const folder = join(dirname(target), `.${basename(target)}.staging-${process.pid}`);
  const folders = await makeFolders(folder).catch((error: unknown) => {
    throw cannotWrite(dataDir, error, write);
  });
  return {
    spec: { dataDir: folder, create: true },
    async putInPlace() {
      await rename(folder, target);
    },
    async discard() {
      await rm(folder, { recursive: true, force: true });
      await folders.removeIfEmpty();
    },
  };
}

async function stageInside(target: string, write: StagedWrite): Promise<Staging> {
  const folder = join(target, `${STAGING_PREFIX}${process.pid}`);
  await mkdir(folder).catch((error: unknown) => {
    throw cannotWrite(target, error, write);
  });
  const moved: string[] = [];
  let placed = false;
  return {
    spec: { dataDir: folder, create: true },
    async putInPlace() {
      const names = (await readdir(folder)).sort((a, b) => Number(a === 'CURRENT') - Number(b === 'CURRENT'));
      for (const name of names) {
        await rename(join(folder, name), join(target, name));
        moved.push(name);
      }
      placed = true;
      await rmdir(folder).catch(() => undefined);
    },
    async discard() {
      await rm(folder, { recursive: true, force: true });
      if (!placed) for (const name of moved.splice(0)) await rm(join(target, name), { force: true });
    },
  };
}

/** A target folder that cannot be made or written, said as one line. */
function cannotWrite(dir: string, error: unknown, write: StagedWrite): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ENOTDIR: 'a part of its path is a file, not a folder',
    EROFS: 'it is on a read-only file system',
    ENOSPC: 'the disk is full',
  };
  const reason = code ? why[code] : undefined;
  return reason ? new Refusal(`cannot write the folder ${dir}: ${reason}; give a new or empty folder you can write with ${write.folderFlag} (${write.undone})`) : error;
}

/**
 * PostgreSQL: notes the target's clocks, checks that it is empty, and writes in a schema of its own whose rows fill
 * the target's tables once nothing has written to the target meanwhile. A user without the right to create a schema
 * writes into the target itself, and is told so.
 */
export async function stageSchema(databaseUrl: string, where: string, write: StagedWrite, say: (line: string) => void): Promise<Staging> {
  const direct: StorageOptions = { dataDir: '', databaseUrl };
  const target = await openForCommand(direct, where, 'stop the service first');
  let expected: string;
  try {
    // Before the check: a write after it moves a clock, and the swap refuses.
    expected = await targetClocks(databaseUrl);
    if (!(await isEmptyStore(target))) throw new Refusal(`the database ${where} is not empty; ${write.verb} into a new, empty database (nothing was written)`);
  } finally {
    await target.close();
  }
  for (const left of await stagingSchemas(databaseUrl)) {
    say(`schema ${left} is a staging copy that a restore or copy under way writes, or one cut short left behind; once none runs, drop it: ${dropStagingSql(left)}`);
  }
  const schema = newStagingSchemaName();
  if (!(await createStagingSchema(databaseUrl, schema))) {
    say(`this database user may not create a schema, so the store is written into ${where} itself: if that fails part way, drop and recreate the database before trying again`);
    return { spec: direct, putInPlace: async () => undefined, discard: async () => undefined };
  }
  return {
    spec: { ...direct, databaseSchema: schema },
    async putInPlace() {
      say(`filling ${where}'s tables from the staged copy, in one transaction`);
      try {
        await swapIn(databaseUrl, schema, expected);
      } catch (error) {
        if (error instanceof TargetChangedError) throw new Refusal(`${error.message}; ${write.undone}: stop what writes to ${where} and ${write.verb} into an empty database`);
        // The answer to COMMIT may be what was lost: the swap drops the staging schema, so its absence means it committed.
        const committed = await stagingSchemas(databaseUrl).then((left) => !left.includes(schema), () => false);
        if (!committed) throw error;
      }
    },
    async discard() {
      await dropStagingSchema(databaseUrl, schema).catch(() =>
        say(`the staging copy in schema ${schema} could not be dropped (the database did not answer); drop it yourself: ${dropStagingSql(schema)}`),
      );
    },
  };
}
