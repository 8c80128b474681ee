import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccessControl } from '../../src/accounts/access.ts';
import { SavedRequests } from '../../src/saved-requests/saved-requests.ts';
import { openStorage } from '../../src/store/storage.ts';
import { secretsInFiles } from './support.ts';
import { formatTable } from '../../src/accounts/cli-support.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const cliScript = new URL('./fixtures/accounts-cli.ts', import.meta.url).pathname;
const repoRoot = new URL('../../', import.meta.url).pathname;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const tms = (args: string[], env: Record<string, string> = {}): Promise<Run> => runNode([...RUN_TYPESCRIPT, cliScript, ...args], env);

function runNode(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Opens the folder in this process to check what the commands did, then lets go of it. */
async function withAccess<T>(dir: string, work: (access: AccessControl, savedRequests: SavedRequests) => Promise<T> | T): Promise<T> {
  const storage = await openStorage({ dataDir: dir, create: false });
  const access = await AccessControl.open(storage.accounts);
  try {
    return await work(access, new SavedRequests(storage.savedRequests));
  } finally {
    await access.close();
    await storage.close();
  }
}

const test = suite<{ dir: string; secrets: string[] }>('tms users / tms keys', { dir: '', secrets: [] });

test.before(async (context) => {
  context.dir = join(await mkdtemp(join(tmpdir(), 'tms-cli-')), 'data');
});
test.after(async ({ dir }) => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

test('package.json bin: bin/tms.js runs the CLI', async () => {
  const run = await runNode([join(repoRoot, 'bin', 'tms.js'), '--help']);
  assert.is(run.code, 0, run.stderr);
  for (const command of ['serve', 'generate', 'users', 'keys']) assert.match(run.stdout, new RegExp(`\\b${command}\\b`));
});

test('users create prints a generated password once; --password sets one', async (context) => {
  const alice = await tms(['users', 'create', 'alice', '--scopes', 'read,write', '--data-dir', context.dir]);
  assert.is(alice.code, 0, alice.stderr);
  assert.match(alice.stdout, 'created account alice with scopes read, write');
  assert.is(alice.stderr, `${context.dir} held no store: made a new, empty one there (tms serve --data-dir ${context.dir} serves it)\n`, 'a folder with no store is not filled silently');
  assert.not.match(alice.stdout, 'held no store', "stdout holds only the command's own output");
  const password = /password: (\S+)/.exec(alice.stdout)?.[1] ?? '';
  assert.match(password, /^[A-Za-z0-9_-]{24}$/);
  context.secrets.push(password);

  const bob = await tms(['users', 'create', 'bob', '--scopes', 'read', '--password', 'bob-password-from-flag'], { TMS_DATA_DIR: context.dir });
  assert.is(bob.code, 0, bob.stderr);
  assert.not.match(bob.stdout, 'password:');
  assert.not.match(bob.stderr, 'held no store', 'the store alice made is used');
  context.secrets.push('bob-password-from-flag');

  await withAccess(context.dir, async (access) => {
    assert.ok(await access.login('alice', password, 'cli-test'));
    assert.ok(await access.login('bob', 'bob-password-from-flag', 'cli-test'));
  });
});

test('users list shows accounts as a table or JSON', async ({ dir }) => {
  const table = await tms(['users', 'list', '--data-dir', dir]);
  assert.is(table.code, 0, table.stderr);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0]!, /^USERNAME\s+SCOPES\s+CREATED\s+CREATED BY$/);
  assert.match(lines[1]!, /^alice\s+read,write\s+\S+\s+\(operator\)$/);
  assert.match(lines[2]!, /^bob\s+read\s+/);
  const json = await tms(['users', 'list', '--json', '--data-dir', dir]);
  assert.equal(JSON.parse(json.stdout).map((a: { username: string }) => a.username), ['alice', 'bob']);
  assert.not.match(json.stdout, 'scrypt');
});

test('keys create prints the key once; keys list never shows it', async (context) => {
  const created = await tms(['keys', 'create', '--user', 'alice', '--name', 'ci pipeline', '--scopes', 'read', '--expires', '30d', '--data-dir', context.dir]);
  assert.is(created.code, 0, created.stderr);
  const key = /key: (tms_\S+)/.exec(created.stdout)?.[1] ?? '';
  const keyId = /created key (key_[0-9a-f]{16}) for alice with scopes read, expires (\S+)/.exec(created.stdout);
  assert.ok(keyId, created.stdout);
  const expires = Date.parse(keyId![2]!);
  assert.ok(Math.abs(expires - (Date.now() + 30 * 86_400_000)) < 60_000, keyId![2]);
  context.secrets.push(key);

  const list = await tms(['keys', 'list', '--data-dir', context.dir]);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /KEY ID\s+ACCOUNT\s+NAME\s+SCOPES\s+CREATED\s+EXPIRES\s+LAST USED\s+STATUS/);
  assert.match(list.stdout, new RegExp(`${keyId![1]}\\s+alice\\s+ci pipeline\\s+read\\s+\\S+\\s+\\S+\\s+-\\s+active`));
  assert.not.match(list.stdout, key.slice(-43));

  await withAccess(context.dir, (access) => {
    assert.is(access.authenticate(`Bearer ${key}`, 'cli-test').account, 'alice');
  });
  const onlyBob = await tms(['keys', 'list', '--user', 'bob', '--json', '--data-dir', context.dir]);
  assert.equal(JSON.parse(onlyBob.stdout), []);
});

test('keys revoke: the key is refused from then on', async ({ dir, secrets }) => {
  const key = secrets.find((s) => s.startsWith('tms_'))!;
  const keyId = key.slice(4, 24);
  const revoked = await tms(['keys', 'revoke', keyId, '--data-dir', dir]);
  assert.is(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, `revoked key ${keyId} (ci pipeline) of alice`);
  const again = await tms(['keys', 'revoke', keyId, '--data-dir', dir]);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`^key ${keyId} \\(ci pipeline\\) of alice was already revoked at \\d{4}-\\d\\d-\\d\\dT`));
  await withAccess(dir, (access) => {
    assert.throws(() => access.authenticate(`Bearer ${key}`, 'cli-test'), /invalid or expired credentials/);
  });
  const list = await tms(['keys', 'list', '--data-dir', dir]);
  assert.match(list.stdout, /revoked$/m);
});

test('a table shows control characters escaped, so that no cell can forge a row or move the cursor', () => {
  const table = formatTable(['NAME', 'STATUS'], [['ci\nkey_fake  active', 'revoked'], ['\u001b[2Kred\ttab', 'active'], ['a\\nb \u200f\u2028', 'active']]);
  assert.is(
    table,
    ['NAME                  STATUS', 'ci\\nkey_fake  active  revoked', '\\u001b[2Kred\\ttab     active', 'a\\\\nb \\u200f\\u2028    active'].join('\n'),
    'a backslash of the name itself is doubled, so that it cannot pass for an escape',
  );
});

test('mistakes exit 1 with a message naming the problem', async ({ dir }) => {
  const cases: [string[], RegExp][] = [
    [['keys', 'create', '--user', 'alice', '--name', 'x', '--scopes', 'admin'], /error: scopes: account "alice" does not hold the "admin" scope/],
    [['keys', 'create', '--user', 'ghost', '--name', 'x', '--scopes', 'read'], /error: account "ghost" not found/],
    [['keys', 'create', '--user', 'alice', '--name', 'x', '--scopes', 'read', '--expires', 'soon'], /error: --expires: use a positive number and a unit/],
    [['keys', 'revoke', 'key_0000000000000000'], /error: key "key_0000000000000000" not found/],
    [['users', 'create', 'alice', '--scopes', 'read'], /error: account "alice" already exists/],
    [['users', 'create', 'carol', '--scopes', 'root'], /error: scopes\[0\]: unknown scope "root"/],
    [['users', 'remove', 'nobody'], /error: account "nobody" not found/],
    [['keys', 'list', '--user', 'nobody'], /error: account "nobody" not found/],
    [['users', 'list', '--database-url', 'mysql://u:secret@localhost/db'], /error: --database-url must be a postgres:\/\/ or postgresql:\/\/ URL\n/],
  ];
  for (const [args, expected] of cases) {
    const run = await tms([...args, '--data-dir', dir]);
    assert.is(run.code, 1, args.join(' '));
    assert.match(run.stderr, expected);
    assert.not.match(run.stderr, /secret/, 'a URL is not repeated: it may hold a password');
  }
  const mistakes: [string[], RegExp][] = [
    [['users', 'create', 'bad name', '--scopes', 'read'], /^error: username: use 1 to 64 letters/],
    [['users', 'create', 'carol', '--scopes', 'root'], /^error: scopes\[0\]: unknown scope "root"/],
    [['users', 'create', 'carol', '--scopes', 'read', '--password', 'short'], /^error: password: must have at least 8 characters/],
  ];
  for (const [args, expected] of mistakes) {
    const fresh = join(dir, '..', 'fresh', 'sub');
    const run = await tms([...args, '--data-dir', fresh]);
    assert.is(run.code, 1, args.join(' '));
    assert.match(run.stderr, expected);
    assert.is(run.stdout, '');
    assert.not.ok(existsSync(join(dir, '..', 'fresh')), `${args.join(' ')}: a mistake makes no store, nor its folders`);
  }
  const missing = await tms(['users', 'list', '--data-dir', join(dir, '..', 'nowhere')]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /error: no tms data folder at .*nowhere \(give it with --data-dir or TMS_DATA_DIR\)/);
  assert.not.ok(existsSync(join(dir, '..', 'nowhere')), 'looking for a store makes no folder');
});

test('while a server holds the data directory, the commands say so', async ({ dir }) => {
  const holder = spawn(
    process.execPath,
    ['--input-type=module', '-e', `const { Level } = await import('level'); const db = new Level(${JSON.stringify(dir)}); await db.open(); console.log('open'); setInterval(() => {}, 1000);`],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const run = await tms(['users', 'list', '--data-dir', dir]);
    assert.is(run.code, 1);
    assert.match(run.stderr, 'is in use by another process (a running tms server holds its lock); stop the server first');
  } finally {
    holder.kill();
    await new Promise((resolve) => holder.once('close', resolve));
  }
});

test('users remove takes the account, its keys and its saved console requests', async ({ dir }) => {
  const request = { name: 'Rome', method: 'GET', path: '/v1/search-events?location=Rome', headers: {}, body: '' };
  await withAccess(dir, async (_access, savedRequests) => {
    await savedRequests.save('bob', request);
    await savedRequests.save('alice', request);
  });
  const removed = await tms(['users', 'remove', 'bob', '--data-dir', dir]);
  assert.is(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, 'removed account bob and its keys, sessions and saved requests');
  await withAccess(dir, async (access, savedRequests) => {
    assert.equal(access.listAccounts({ account: 'x', scopes: new Set(['admin']), credentialId: 'x', kind: 'key' }).map((a) => a.username), ['alice']);
    assert.is((await savedRequests.list('bob', 10, undefined)).records.length, 0, "bob's saved request went with him");
    assert.is((await savedRequests.list('alice', 10, undefined)).records.length, 1, "alice's stays");
  });
});

test('no password or key appears anywhere in the data directory', async ({ dir, secrets }) => {
  assert.is(secrets.length, 3);
  assert.equal(await secretsInFiles(dir, [...secrets, ...secrets.map((s) => s.slice(-24))]), []);
});

test.run();
