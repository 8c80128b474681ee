import { Command } from 'commander';
import { OPERATOR } from '../accounts/principal.ts';
import { parseDuration, printable } from '../accounts/validation.ts';
import { databaseUrlOption, dataDirOption, formatTable, runOffline } from '../accounts/cli-support.ts';
import { refuseOtherUrls } from './store-location.ts';

/** `tms keys create|list|revoke`: API keys on a stopped server's data directory. */
export function keysCommand(): Command {
  const keys = new Command('keys').description('create, list and revoke API keys (offline: the server must be stopped)').hook('preAction', refuseOtherUrls);

  keys
    .command('create')
    .description("create an API key for an account; the key is printed once and stored only as a hash")
    .requiredOption('--user <name>', 'the account the key acts as')
    .requiredOption('--name <label>', 'what the key is for, e.g. "ci" or "billing service"')
    .requiredOption('--scopes <scopes>', "comma-separated: read, write, admin (at most the account's)")
    .option('--expires <duration>', 'lifetime, e.g. 12h, 30d, 2w (default: does not expire)')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (options: { user: string; name: string; scopes: string; expires?: string; dataDir: string; databaseUrl?: string }, command: Command) => {
      await runOffline(command, options, async (access, print) => {
        const expiresAt = options.expires === undefined ? undefined : new Date(Date.now() + parseDuration(options.expires)).toISOString();
        const created = await access.createKey(OPERATOR, {
          account: options.user,
          name: options.name,
          scopes: options.scopes,
          expires_at: expiresAt,
        });
        const said = `created key ${created.key_id} for ${created.account} with scopes ${created.scopes.join(', ')}${created.expires_at ? `, expires ${created.expires_at}` : ''}`;
        // Shown only here: a key whose secret nobody could read is revoked at once.
        await print.written(`${said}\nkey: ${created.key}\n(shown only now: store it safely)`).catch(async (error: NodeJS.ErrnoException) => {
          await access.revokeKey(OPERATOR, created.key_id);
          throw new Error(`the key could not be written (${error.code ?? error.message}), so key ${created.key_id} was revoked; run the command again with its output going somewhere that can take it`);
        });
      });
    });

  keys
    .command('list')
    .description('list API keys (never their secrets)')
    .option('--user <name>', "only this account's keys")
    .option('--json', 'print JSON instead of a table')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (options: { user?: string; json?: boolean; dataDir: string; databaseUrl?: string }, command: Command) => {
      await runOffline(command, options, async (access, print) => {
        const list = await access.listKeys(OPERATOR, { account: options.user });
        if (options.json) return print(JSON.stringify(list, null, 2));
        const rows = list.map((k) => [
          k.key_id,
          k.account,
          k.name,
          k.scopes.join(','),
          k.created_at,
          k.expires_at ?? '-',
          k.last_used_at ?? '-',
          k.revoked ? 'revoked' : k.expires_at !== null && Date.parse(k.expires_at) <= Date.now() ? 'expired' : 'active',
        ]);
        print(formatTable(['KEY ID', 'ACCOUNT', 'NAME', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'STATUS'], rows));
      });
    });

  keys
    .command('revoke')
    .description('revoke an API key: it is refused from then on')
    .argument('<key_id>', 'the key id shown by `tms keys list`')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (keyId: string, options: { dataDir: string; databaseUrl?: string }, command: Command) => {
      await runOffline(command, options, async (access, print) => {
        const before = (await access.listKeys(OPERATOR)).find((listed) => listed.key_id === keyId);
        const key = await access.revokeKey(OPERATOR, keyId);
        const name = printable(key.name);
        print(before?.revoked ? `key ${key.key_id} (${name}) of ${key.account} was already revoked at ${before.revoked_at}` : `revoked key ${key.key_id} (${name}) of ${key.account}`);
      });
    });

  return keys;
}
