import { open, rename, rm, stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename, dirname, join, resolve } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Presets, SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { BackupFileError, readBackupFrom, verifyBackup, type BackupTrailer } from '../store/backup-format.ts';
import { compareWithBackup, loadBackup, writeBackup } from '../store/backup.ts';
import { leftOut, NONE_SKIPPED, type Skipped } from '../store/stray-credentials.ts';
import { describeUrl } from '../store/postgres/open-failures.ts';
import { makeFolders } from './made-folders.ts';
import { undoneOnInterrupt } from './interrupt.ts';
import { refuseOtherUrls } from './store-location.ts';
import { assertNewFolder, openForCommand, Refusal, stageFolder, stageSchema, type StagedWrite } from './staged-store.ts';

const BACKUP_PATH = '/v1/admin/backup';

function progressBar(enabled: boolean, label: string, unit: string): SingleBar | undefined {
  if (!enabled) return undefined;
  return new SingleBar(
    { stream: process.stderr, hideCursor: true, noTTYOutput: true, notTTYSchedule: 5_000, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta_formatted} left` },
    Presets.shades_classic,
  );
}

/** What a failure of reading or writing a backup file means for the operator. */
function explainFileError(error: BackupFileError, afterwards: string): string {
  switch (error.kind) {
    case 'missing':
      return `${error.message}; give the path of a file made by tms backup`;
    case 'foreign':
      return `${error.message}; give a file made by tms backup (${afterwards})`;
    case 'newer':
      return `${error.message}; use that version of tms or a newer one (${afterwards})`;
    case 'damaged':
      return `${error.message}; ${afterwards}: use another copy of the backup, or make a new one`;
  }
}

const summary = (trailer: BackupTrailer, skipped: Skipped = NONE_SKIPPED) =>
  `${trailer.timelines.length} timelines (${trailer.entries} entries), ${trailer.accounts} accounts, ${trailer.keys - skipped.keys} keys, ${trailer.sessions - skipped.sessions} sessions, ${trailer.saved_requests} saved requests`;

// ------------------------------------------------------------------ backup

interface BackupOptions {
  url?: string;
  key?: string;
  dataDir?: string;
  databaseUrl?: string;
  force: boolean;
  progress: boolean;
}

/** GET /v1/admin/backup; resolves with the 200 response, or refuses with the service's reason and the fix. */
function requestBackup(base: string, key: string): Promise<IncomingMessage> {
  let url: URL;
  try {
    url = new URL(BACKUP_PATH, base);
  } catch {
    return Promise.reject(new Refusal(`--url ${base} is not a URL; give the service's address, e.g. http://127.0.0.1:8080`));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const req = send(url, { method: 'GET', headers: { authorization: `Bearer ${key}`, accept: 'application/vnd.tms.backup' }, timeout: 120_000 }, (res) => {
      if (res.statusCode === 200) {
        resolvePromise(res);
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let reason = `${res.statusCode}`;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string; message?: string };
          reason = `${res.statusCode} ${body.code}: ${body.message}`;
        } catch {
          // not the error JSON: the status says enough
        }
        const fix =
          res.statusCode === 401
            ? 'give an API key of an admin account with --key or TMS_KEY'
            : res.statusCode === 403
              ? 'give a key with the "admin" scope (POST /v1/keys with {"name":"backup","scopes":["admin"]} as an admin, or tms keys create --user admin --name backup --scopes admin with the service stopped)'
              : res.statusCode === 404
                ? `is ${base} a tms service of this version? give its address with --url`
                : res.statusCode === 503
                  ? 'the service is starting, shutting down or cannot reach its database: try again shortly'
                  : 'see the service log for this request';
        reject(new Refusal(`the service at ${base} refused the backup (${reason}); ${fix}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 120 s')));
    req.on('error', (error: Error & { code?: string }) =>
      reject(new Refusal(`cannot reach tms at ${base} (${error.code ?? error.message}); start the service, or give its address with --url`)),
    );
    req.end();
  });
}

/** Writes to `<file>.partial`, then renames it into place: a file named `file` is always a whole, checked backup. */
async function saveBackup(file: string, force: boolean, write: (sink: Writable, partial: string) => Promise<BackupTrailer>): Promise<BackupTrailer> {
  if (file.trim() === '') throw new Refusal('the backup file is an empty name; give the path of the backup file to write');
  const target = resolve(file);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new Refusal(`${file} is a folder; give the path of the backup file to write`);
  if (existing && !force) throw new Refusal(`${file} already exists; choose another name, or pass --force to replace it`);
  const cannotWrite = (error: NodeJS.ErrnoException) => new Refusal(`cannot write ${file} (${error.code ?? error.message}); give a path in a folder you can write`);
  const folders = await makeFolders(dirname(target)).catch((error: NodeJS.ErrnoException) => {
    throw cannotWrite(error);
  });
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  const opened = await open(partial, 'wx', 0o600).catch(async (error: NodeJS.ErrnoException) => {
    await folders.removeIfEmpty();
    throw cannotWrite(error);
  });
  const sink = opened.createWriteStream();
  try {
    const removePartial = async () => {
      sink.destroy();
      await rm(partial, { force: true });
      await folders.removeIfEmpty();
    };
    const trailer = await undoneOnInterrupt(removePartial, `no backup was written to ${file}`, () => write(sink, partial));
    const handle = await open(partial, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(partial, target);
    return trailer;
  } catch (error) {
    // Closed (and so created, if its opening was under way) before it is removed: nothing is left behind.
    if (!sink.closed) await new Promise<void>((done) => sink.once('close', () => done()).destroy());
    await rm(partial, { force: true });
    await folders.removeIfEmpty();
    throw error;
  }
}

async function runBackup(file: string, options: BackupOptions): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const direct = options.dataDir ?? options.databaseUrl;
  if (options.dataDir && options.databaseUrl) throw new Refusal('give either --data-dir or --database-url, not both');
  if (direct && options.url) throw new Refusal('give either --url (through the running service) or --data-dir / --database-url (read the store directly), not both');
  const started = performance.now();
  let trailer: BackupTrailer;
  if (direct) {
    const where = options.databaseUrl ? describeUrl(options.databaseUrl) : options.dataDir!;
    const storage = await openForCommand(options.databaseUrl ? { dataDir: '', databaseUrl: options.databaseUrl } : { dataDir: options.dataDir!, create: false }, where,
      'back it up through the service instead: tms backup <file> --url http://host:port --key <admin key>');
    try {
      const bar = progressBar(options.progress, 'backup', 'entries');
      try {
        trailer = await saveBackup(file, options.force, async (sink, partial) => {
          // Once the file is there to write: a refused file says nothing of a backup first.
          say(`backing up ${where} to ${file}`);
          bar?.start(1, 0);
          await writeBackup(storage, options.databaseUrl ? 'postgresql' : 'leveldb', sink, ({ done, total }) => {
            bar?.setTotal(total);
            bar?.update(done);
          });
          return (await verifyBackup(partial)).trailer;
        });
      } finally {
        bar?.stop();
      }
    } finally {
      await storage.close();
    }
  } else {
    const base = options.url ?? process.env['TMS_URL'] ?? `http://127.0.0.1:${process.env['TMS_PORT'] ?? 8080}`;
    const key = options.key ?? process.env['TMS_KEY'] ?? process.env['TMS_ADMIN_KEY'];
    if (!key) throw new Refusal('no API key: give an admin key with --key or the environment variable TMS_KEY');
    const bar = progressBar(options.progress, 'backup', 'entries');
    try {
      trailer = await saveBackup(file, options.force, async (sink) => {
        const response = await requestBackup(base, key);
        say(`backing up the service at ${base} to ${file}`);
        bar?.start(1, 0);
        // Saved as it arrives, and checked as it arrives: what lands in the file is exactly what passed.
        const toFile = new PassThrough();
        const toCheck = new PassThrough();
        response.pipe(toFile);
        response.pipe(toCheck);
        const cut = (error: Error) => {
          toFile.destroy(error);
          toCheck.destroy(error);
        };
        response.on('error', cut);
        response.on('close', () => {
          if (!response.complete) cut(new Error('the connection closed before the end'));
        });
        const saving = pipeline(toFile, sink);
        // Handled here too: a cut stream rejects it before the check below has noticed.
        saving.catch(() => undefined);
        let found: BackupTrailer | undefined;
        let done = 0;
        try {
          for await (const items of readBackupFrom(toCheck, `the backup streamed from ${base}`)) {
            for (const item of items) {
              if (item.kind === 'header') bar?.setTotal(item.header.entries);
              else if (item.kind === 'entries') done += item.entries.length;
              else if (item.kind === 'trailer') found = item.trailer;
            }
            bar?.update(done);
          }
        } catch (error) {
          response.destroy();
          await saving.catch(() => undefined);
          if (error instanceof BackupFileError && error.kind === 'foreign') {
            throw new Refusal(`the service at ${base} answered with something that is not a tms backup; check that --url names the tms service itself (nothing was kept)`);
          }
          if (error instanceof BackupFileError && error.kind === 'newer') {
            throw new Refusal(`${error.message}; run tms backup from the service's own version of tms (nothing was kept)`);
          }
          const why = error instanceof BackupFileError ? error.message.replace(/^.* is damaged \((.*)\)$/, '$1') : (error as Error).message;
          throw new Refusal(`the backup streamed from ${base} was cut short or damaged (${why}); nothing was kept: see the service log, then run tms backup again`);
        }
        await saving;
        return found!;
      });
    } finally {
      bar?.stop();
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const { size } = await stat(file);
  process.stdout.write(`backed up ${summary(trailer)} to ${file} (${(size / 1048576).toFixed(1)} MiB) in ${seconds.toFixed(1)} s; verified\n`);
}

// ------------------------------------------------------------------ restore

interface RestoreOptions {
  dataDir?: string;
  databaseUrl?: string;
  progress: boolean;
}

const RESTORE: StagedWrite = { verb: 'restore', undone: 'nothing was restored', folderFlag: '--data-dir' };

async function runRestore(file: string, options: RestoreOptions): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (options.dataDir && options.databaseUrl) throw new Refusal('give either --data-dir or --database-url to restore into, not both');
  if (!options.dataDir && !options.databaseUrl) throw new Refusal('give where to restore: --data-dir <new folder> or --database-url <empty database>');
  const began = performance.now();
  const where = options.databaseUrl ? describeUrl(options.databaseUrl) : options.dataDir!;
  if (options.dataDir) await assertNewFolder(options.dataDir, RESTORE);

  // 1. The whole file, checked, before anything is opened or written.
  const verifyBar = progressBar(options.progress, 'check', 'entries');
  let started = false;
  let checked;
  try {
    // The bar starts with the first records: a file refused at once shows none. Stopped by a signal, it gives the
    // terminal its cursor back.
    const stopBar = async () => {
      if (started) verifyBar?.stop();
    };
    checked = await undoneOnInterrupt(stopBar, `nothing was restored into ${where} (the file was being checked)`, () =>
      verifyBackup(file, (done, total) => {
        if (!started) {
          say(`checking ${file}`);
          verifyBar?.start(Math.max(1, total), 0);
          started = true;
        }
        verifyBar?.setTotal(Math.max(1, total));
        verifyBar?.update(done);
      }),
    );
  } catch (error) {
    if (error instanceof BackupFileError) throw new Refusal(explainFileError(error, 'nothing was restored'));
    throw error;
  } finally {
    if (started) verifyBar?.stop();
  }

  // 2. Load into a staging copy, checked there and then put in place whole: for LevelDB a folder beside a new target
  // (renamed) or inside an existing empty one (its files moved up); for PostgreSQL a schema in the same database, copied into the target's tables in one transaction.
  const staging = options.dataDir ? await stageFolder(options.dataDir, RESTORE) : await stageSchema(options.databaseUrl!, where, RESTORE, say);
  let restoredEvents = 0;
  let skipped = NONE_SKIPPED;
  try {
    await undoneOnInterrupt(() => staging.discard(), `nothing was restored into ${where}`, async () => {
      const target = await openForCommand(staging.spec, where, 'stop the service first');
      try {
        say(`restoring ${file} (made ${checked.header.created_at} from ${checked.header.source}) into ${where}`);
        const bar = progressBar(options.progress, 'restore', 'entries');
        bar?.start(Math.max(1, checked.header.entries), 0);
        try {
          ({ skipped } = await loadBackup(file, target, ({ done, total }) => {
            bar?.setTotal(total);
            bar?.update(done);
          }));
        } finally {
          bar?.stop();
        }
      } finally {
        await target.close();
      }
      // 3. Read it back: counts and a checksum per timeline, as the backup recorded them.
      say('verifying: counts and a checksum per timeline');
      const reopened = await openForCommand(staging.spec, where, 'stop the service first');
      try {
        const differences = await compareWithBackup(reopened, checked.trailer, skipped);
        if (differences.length > 0) throw new Error(`the restored store differs from the backup: ${differences.join('; ')}`);
        restoredEvents = (await reopened.timelines.listTimelines()).reduce((sum, timeline) => sum + timeline.event_count, 0);
      } finally {
        await reopened.close();
      }
    });
    await staging.putInPlace();
  } catch (error) {
    await staging.discard();
    throw error;
  }
  const seconds = (performance.now() - began) / 1000;
  process.stdout.write(`restored ${summary(checked.trailer, skipped)}, ${restoredEvents} events, into ${where} in ${seconds.toFixed(1)} s; verified${leftOut(skipped, 'the backup')}\n`);
}

// ------------------------------------------------------------------ the commands

const fail = (command: Command) => (error: unknown) => {
  const message = error instanceof Refusal || error instanceof BackupFileError ? error.message : error instanceof Error ? error.message : String(error);
  command.error(`error: ${message}`, { exitCode: 1 });
};

/** `tms backup <file>`: a consistent snapshot of the whole store, taken while the service runs. */
export function backupCommand(): Command {
  return new Command('backup')
    .hook('preAction', refuseOtherUrls)
    .description('write a consistent snapshot of the whole store to a file, while the service runs')
    .argument('<file>', 'the backup file to write (refused if it exists, unless --force)')
    .option('--url <url>', 'the running service (env TMS_URL; default http://127.0.0.1:$TMS_PORT or :8080)')
    .addOption(new Option('--key <key>', 'an API key with the admin scope (env TMS_KEY, else TMS_ADMIN_KEY); the environment keeps it out of ps'))
    .option('--data-dir <dir>', 'read a LevelDB folder directly instead, with the service stopped')
    .option('--database-url <url>', 'read a PostgreSQL database directly instead (the service may run)')
    .option('--force', 'replace <file> if it exists', false)
    .option('--no-progress', 'no progress bar on stderr')
    .addHelpText(
      'after',
      `
The snapshot holds every timeline, branch, event version, index and anchor (the timeline store's entries,
byte for byte), every account, API key and login session, and every saved console request, all as they
stood at one moment: writes acknowledged before the backup began are in it, later ones are not. Login
lockouts are not kept. The service streams it from GET ${BACKUP_PATH} (admin scope); a LevelDB folder is
locked by the running service, so --data-dir works only while it is stopped. The file is written beside
<file> under a temporary name, checked (SHA-256 and counts), then renamed into place.

Format: a first line "TMS-BACKUP 1", then gzip of length-prefixed records (header, entries, accounts,
keys, sessions, saved requests) and a trailer with counts, a checksum per timeline and a SHA-256 of all.`,
    )
    .action((file: string, options: BackupOptions, command: Command) => runBackup(file, options).catch(fail(command)));
}

/** `tms restore <file>`: a backup into a new LevelDB folder or an empty PostgreSQL database. */
export function restoreCommand(): Command {
  return new Command('restore')
    .hook('preAction', refuseOtherUrls)
    .description('load a backup into an empty store (a new LevelDB folder or an empty PostgreSQL database), with the service stopped')
    .argument('<file>', 'a file made by tms backup')
    .option('--data-dir <dir>', 'a new or empty LevelDB folder')
    .option('--database-url <url>', 'a PostgreSQL database with no tms store in it (new, or where only tms migrate ran; tables of other programs stay as they are)')
    .option('--no-progress', 'no progress bar on stderr')
    .addHelpText(
      'after',
      `
The whole file is checked first (its first line, every record, counts, the per-timeline checksums and the
SHA-256); a missing, foreign, truncated or damaged file is refused before anything is written. A LevelDB
restore loads into a temporary folder beside --data-dir and renames it into place only once it has been
read back and matched the backup (counts and a checksum per timeline), so the target appears whole or not
at all. A PostgreSQL restore does the same in a schema of its own (tms_staging_<random>) in the target
database, and fills the target's tables from it in one transaction (a user who may not create a schema
loads into the target itself). Start the service on the target after.`,
    )
    .action((file: string, options: RestoreOptions, command: Command) => runRestore(file, options).catch(fail(command)));
}
