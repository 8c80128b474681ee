import { Command } from 'commander';
import { OPERATOR } from '../accounts/principal.ts';
import { checkPassword, normalizeUsername, parseScopes } from '../accounts/validation.ts';
import { databaseUrlOption, dataDirOption, formatTable, runOffline } from '../accounts/cli-support.ts';
import { refuseOtherUrls } from './store-location.ts';
import { removeAccount } from '../saved-requests/remove-account.ts';

/** `tms users create|list|remove`: account administration on a stopped server's data directory. */
export function usersCommand(): Command {
  const users = new Command('users').description('create, list and remove accounts (offline: the server must be stopped)').hook('preAction', refuseOtherUrls);

  users
    .command('create')
    .description('create an account; without --password, a random one is generated and printed once')
    .argument('<name>', 'username (lowercase letters, digits, ".", "_", "-")')
    .requiredOption('--scopes <scopes>', 'comma-separated: read, write, admin')
    .option('--password <password>', 'the password (prefer the generated one: command lines end up in shell history)')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (name: string, options: { scopes: string; password?: string; dataDir: string; databaseUrl?: string }, command: Command) => {
      const check = () => {
        normalizeUsername(name);
        parseScopes(options.scopes);
        if (options.password) checkPassword(options.password);
      };
      await runOffline(command, { dataDir: options.dataDir, databaseUrl: options.databaseUrl, create: true, check }, async (access, print) => {
        const { account, password } = await access.createAccount(OPERATOR, {
          username: name,
          scopes: options.scopes,
          password: options.password,
        });
        const created = `created account ${account.username} with scopes ${account.scopes.join(', ')}`;
        if (password === undefined) return print(created);
        // Shown only here: an account whose password nobody could read is not kept.
        await print.written(`${created}\npassword: ${password}\n(shown only now: store it safely)`).catch(async (error: NodeJS.ErrnoException) => {
          await access.undoCreate(OPERATOR, account.username);
          throw new Error(`the generated password could not be written (${error.code ?? error.message}), so account ${account.username} was not kept; run the command again with its output going somewhere that can take it`);
        });
      });
    });

  users
    .command('list')
    .description('list accounts')
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (options: { json?: boolean; dataDir: string; databaseUrl?: string }, command: Command) => {
      await runOffline(command, options, (access, print) => {
        const accounts = access.listAccounts(OPERATOR);
        if (options.json) return print(JSON.stringify(accounts, null, 2));
        const rows = accounts.map((a) => [a.username, a.scopes.join(','), a.created_at, a.created_by]);
        print(formatTable(['USERNAME', 'SCOPES', 'CREATED', 'CREATED BY'], rows));
      });
    });

  users
    .command('remove')
    .description('remove an account together with its API keys, sessions and saved console requests')
    .argument('<name>', 'username')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (name: string, options: { dataDir: string; databaseUrl?: string }, command: Command) => {
      await runOffline(command, options, async (access, print, { savedRequests }) => {
        const removed = await removeAccount(access, savedRequests, OPERATOR, name);
        print(`removed account ${removed} and its keys, sessions and saved requests`);
      });
    });

  return users;
}
