import { Command, Option } from 'commander';
import { migrateDatabase } from '../store/postgres/migrate-database.ts';
import { refuseOtherUrls } from './store-location.ts';

/**
 * `tms migrate`: the PostgreSQL schema changes alone, e.g. as a deploy step or as a user with more rights than
 * the service's own. Nodes run the same migrations at start, so this is never required.
 */
export function migrateCommand(): Command {
  return new Command('migrate')
    .hook('preAction', refuseOtherUrls)
    .description('bring the PostgreSQL schema up to date, then exit')
    .addOption(new Option('--database-url <url>', 'postgres://user:password@host:port/database').env('TMS_DATABASE_URL').makeOptionMandatory())
    .action(async (options: { databaseUrl: string }, command: Command) => {
      try {
        const { from, to } = await migrateDatabase(options.databaseUrl);
        process.stdout.write(from === to ? `schema already at version ${to}\n` : `schema migrated from version ${from} to ${to}\n`);
      } catch (error) {
        command.error(`error: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
    });
}
