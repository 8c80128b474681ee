import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import { openOffline, type OfflineAccess } from './offline.ts';
import type { AccessControl } from './access.ts';
import { printable } from './validation.ts';
import { reportedByCommand } from '../cli/output-errors.ts';

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

/** Prints a line of the command's output; `written` settles once it is written, failing if it could not be. */
export type Print = ((line: string) => void) & { written(line: string): Promise<void> };

/**
 * Runs one offline command against the store: checks its input, opens the store, runs, closes it; on failure prints
 * `error: <message>` and exits with status 1 (through commander's `error`).
 */
export async function runOffline(
  command: Command,
  options: { dataDir: string; databaseUrl?: string; create?: boolean; check?: () => void },
  work: (access: AccessControl, print: Print, opened: OfflineAccess) => Promise<void> | void,
): Promise<void> {
  const writeErr = command.configureOutput().writeErr ?? ((text: string) => process.stderr.write(text));
  const print: Print = Object.assign((line: string): void => void process.stdout.write(`${line}\n`), {
    written: (line: string) =>
      new Promise<void>((resolve, reject) =>
        process.stdout.write(`${line}\n`, (error) => {
          if (!error) return resolve();
          reportedByCommand(error);
          reject(error);
        }),
      ),
  });
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
    // Input is checked before the store is opened: a mistake makes no store.
    options.check?.();
    opened = await openOffline(options.dataDir, { create: options.create ?? false, ...(databaseUrl && { databaseUrl }) });
    // On stderr: stdout carries what the command gives (a generated password, a list) to scripts.
    if (newStore) writeErr(`${options.dataDir} held no store: made a new, empty one there (tms serve --data-dir ${options.dataDir} serves it)\n`);
    await work(opened.access, print, opened);
  } catch (error) {
    await opened?.close().catch(() => undefined);
    opened = undefined;
    command.error(`error: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
  }
  await opened?.close();
}

/**
 * Columns padded to their widest cell: easy to read, easy to grep. Cells are shown with their control characters
 * escaped, so that a name written through the API cannot forge a row or move the cursor.
 */
export function formatTable(header: readonly string[], rawRows: readonly (readonly string[])[]): string {
  const rows = rawRows.map((row) => row.map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
