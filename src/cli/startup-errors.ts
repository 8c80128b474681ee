import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Config } from '../config.ts';
import { ConfigError, configEnv } from '../config.ts';
import { StoreOpenError } from '../store/storage.ts';
import { AdminKeyRefusal } from '../accounts/access.ts';

type Cause = Error & { code?: string; cause?: Cause; syscall?: string; path?: string };

/** LevelDB's I/O error for a missing file: `IO error: <dir>/MANIFEST-000002: No such file or directory`. */
const MISSING_FILE = /^IO error: (.*): No such file or directory$/;

/**
 * Whether a store (a folder with LevelDB's CURRENT) failed to open for a file its own records name (a manifest,
 * a table, a log): damage, though LevelDB reports it as an I/O error. Its LOCK is no such file.
 */
function missingStoreFile(dir: string, cause: Cause): boolean {
  const missing = cause.code === 'LEVEL_IO_ERROR' ? MISSING_FILE.exec(cause.message)?.[1] : undefined;
  return missing !== undefined && basename(missing) !== 'LOCK' && existsSync(join(dir, 'CURRENT'));
}

const flagOf: Partial<Record<keyof Config, string>> = { dataDir: '--data-dir', port: '--port', host: '--host' };
const setting = (key: keyof Config) => `${configEnv[key]}${flagOf[key] ? ` / ${flagOf[key]}` : ''}`;

/**
 * A start that fails for a reason an operator can fix, as one line naming the cause and the fix; undefined
 * for anything unexpected (which keeps its stack trace).
 */
export function explainStartupError(error: unknown, config: Config | undefined): string | undefined {
  if (error instanceof ConfigError) return `invalid setting: ${error.message}`;
  if (error instanceof StoreOpenError) return error.message;
  if (error instanceof AdminKeyRefusal) return error.message;
  if (!(error instanceof Error) || !config) return undefined;
  const failure = error as Cause;
  const cause = failure.cause ?? failure;
  const dir = config.dataDir;
  const at = `${config.host}:${config.port}`;
  if (failure.code === 'LEVEL_DATABASE_NOT_OPEN') {
    if (cause.code === 'LEVEL_LOCKED') {
      return `the data folder ${dir} is in use by another tms process (its LevelDB lock is held); stop that process, or choose another folder with ${setting('dataDir')}`;
    }
    if (cause.code === 'LEVEL_CORRUPTION' || missingStoreFile(dir, cause)) {
      return `the store in ${dir} is damaged (${cause.message}); restore it from a backup, or move the folder away to start with an empty store`;
    }
    if (cause.code === 'EACCES' || cause.code === 'EPERM' || /permission denied/i.test(cause.message)) {
      return `cannot write the data folder ${dir} (permission denied); give this user write access to it, or choose another folder with ${setting('dataDir')}`;
    }
    if (cause.code === 'ENOTDIR' || cause.code === 'EEXIST') {
      return `the data folder ${dir} cannot be created: part of that path is a file, not a folder; choose another folder with ${setting('dataDir')}`;
    }
    return `cannot open the store in ${dir} (${cause.message}); check the folder, or choose another with ${setting('dataDir')}`;
  }
  switch (failure.code) {
    case 'EADDRINUSE':
      return `port ${config.port} on ${config.host} is already in use by another program; stop it, or choose another port with ${setting('port')}`;
    case 'EACCES':
      if (failure.syscall === 'listen') return `not allowed to listen on ${at} (ports below 1024 need privileges); choose another port with ${setting('port')}`;
      break;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `cannot listen on ${at}: that address is not one of this machine's; choose another with ${setting('host')}`;
  }
  if (failure.code === 'ENOENT' && (failure.path === config.tlsCert || failure.path === config.tlsKey)) {
    return `cannot read ${failure.path === config.tlsCert ? configEnv.tlsCert : configEnv.tlsKey} ${failure.path} (no such file); give the path of a PEM file`;
  }
  if (failure.code?.startsWith('ERR_OSSL') || /certificate|private key|PEM routines/i.test(failure.message)) {
    return `the TLS certificate or key is not usable (${failure.message}); give a PEM certificate and its private key with ${configEnv.tlsCert} and ${configEnv.tlsKey}`;
  }
  return undefined;
}
