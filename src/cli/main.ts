import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { serveCommand } from './serve-command.ts';
import { generateCommand } from './generate-command.ts';
import { usersCommand } from './users-command.ts';
import { keysCommand } from './keys-command.ts';
import { migrateCommand } from './migrate-command.ts';
import { copyStoreCommand } from './copy-store-command.ts';
import { backupCommand, restoreCommand } from './backup-command.ts';
import { refuseUnknownCommand } from './unknown-command.ts';
import { failOnUnwritableOutput } from './output-errors.ts';

// An empty variable is one not set, for every command: commander would take "" as the value.
for (const [name, value] of Object.entries(process.env)) if (name.startsWith('TMS_') && value === '') delete process.env[name];

failOnUnwritableOutput();

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('tms')
  .description('tms, the Time-Manipulation Service')
  .version(version, '-V, --version', "print tms's version")
  .addCommand(serveCommand(), { isDefault: true })
  .addCommand(generateCommand())
  .addCommand(usersCommand())
  .addCommand(keysCommand())
  .addCommand(migrateCommand())
  .addCommand(copyStoreCommand())
  .addCommand(backupCommand())
  .addCommand(restoreCommand());

refuseUnknownCommand(program, process.argv);
await program.parseAsync(process.argv);
