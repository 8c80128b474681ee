import type { Command } from 'commander';
import { NOT_A_POSTGRES_URL, POSTGRES_URL } from '../store/postgres/open-failures.ts';

const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Before a store command runs: a `--database-url` that is not PostgreSQL's would be tried as one, and a
 * `--from`/`--to` URL of another kind taken for a folder name. The value is not repeated: it may hold a password.
 */
export function refuseOtherUrls(_command: Command, action: Command): void {
  const options = action.opts<{ databaseUrl?: unknown; from?: unknown; to?: unknown }>();
  // A --data-dir flag names the store over TMS_DATABASE_URL, which is then not used.
  const folderByFlag = action.getOptionValueSource('dataDir') === 'cli' && action.getOptionValueSource('databaseUrl') !== 'cli';
  if (typeof options.databaseUrl === 'string' && !folderByFlag && !POSTGRES_URL.test(options.databaseUrl)) {
    action.error(`error: --database-url ${NOT_A_POSTGRES_URL}`, { exitCode: 1 });
  }
  for (const [flag, value] of [['--from', options.from], ['--to', options.to]] as const) {
    if (typeof value === 'string' && ANY_URL.test(value) && !POSTGRES_URL.test(value)) {
      action.error(`error: ${flag} is a URL that is not a postgres:// or postgresql:// one; give a folder or a PostgreSQL URL`, { exitCode: 1 });
    }
  }
}
