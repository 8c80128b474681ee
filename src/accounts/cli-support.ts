import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import { openOffline, type OfflineAccess } from './offline.ts';
import type { AccessControl } from './access.ts';

/** `--data-dir`, shared by every offline account command; the server reads the same variable. */
export function dataDirOption(): Option {
  return new Option('--data-dir <dir>', 'the LevelDB data directory of the (stopped) server')
    .env('TMS_DATA_DIR')
    .default('./data');
}

/** `--database-url`: the same commands on a PostgreSQL store, where they may run while servers serve it. */
export function databaseUrlOption(): Option {
  return new Option('--database-url <url>', 'a PostgreSQL store instead of the data directory (postgres://…)').env('TMS_DATABASE_URL');
}

/**
 * Runs one offline command against the store: opens it, runs, closes it; on failure prints
 * `error: <message>` and exits with status 1 (through commander, so tests can intercept both).
 */
export async function runOffline(
  command: Command,
  options: { dataDir: string; databaseUrl?: string; create?: boolean },
  work: (access: AccessControl, print: (line: string) => void, opened: OfflineAccess) => Promise<void> | void,
): Promise<void> {
  const writeOut = command.configureOutput().writeOut ?? ((text: string) => process.stdout.write(text));
  const print = (line: string): void => writeOut(`${line}\n`);
  // As for `serve`: a flag names the store over an environment variable, and two flags are one too many.
  const fromFlag = (name: string) => command.getOptionValueSource(name) === 'cli';
  if (fromFlag('dataDir') && fromFlag('databaseUrl')) {
    command.error('error: give either --data-dir (a LevelDB folder) or --database-url (PostgreSQL), not both', { exitCode: 1 });
  }
  const databaseUrl = fromFlag('dataDir') ? undefined : options.databaseUrl;
  // A mistyped folder would otherwise get a store of its own without a word.
  const newStore = options.create === true && databaseUrl === undefined && !existsSync(join(options.dataDir, 'CURRENT'));
  let opened: Awaited<ReturnType<typeof openOffline>> | undefined;
  try {
    opened = await openOffline(options.dataDir, { create: options.create ?? false, ...(databaseUrl && { databaseUrl }) });
    if (newStore) print(`${options.dataDir} held no store: made a new, empty one there (tms serve --data-dir ${options.dataDir} serves it)`);
    await work(opened.access, print, opened);
  } catch (error) {
    await opened?.close().catch(() => undefined);
    opened = undefined;
    command.error(`error: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
  }
  await opened?.close();
}

/** Columns padded to their widest cell: easy to read, easy to grep. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
