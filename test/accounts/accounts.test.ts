import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { DEFAULT_SCRYPT_COST, hashPassword, verifyPassword } from '../../src/accounts/password-hash.ts';
import { apiError, makeAccount, openHarness } from './support.ts';
import type { Harness } from './support.ts';

const test = suite<{ h: Harness }>('accounts', { h: undefined as unknown as Harness });

test.before.each(async (context) => {
  context.h = await openHarness();
});
test.after.each(async ({ h }) => {
  await h.close();
  await h.remove();
});

test('an admin creates, lists and removes accounts', async ({ h }) => {
  const root = await makeAccount(h.access, 'root', ['admin']);
  const created = await h.access.createAccount(root.principal, { username: 'Dave', password: 'a good password', scopes: 'write,read' });
  assert.equal(created, {
    account: { username: 'dave', scopes: ['read', 'write'], created_at: new Date(h.clock.ms).toISOString(), created_by: 'root' },
  });
  assert.equal(h.access.listAccounts(root.principal).map((a) => [a.username, a.scopes]), [
    ['dave', ['read', 'write']],
    ['root', ['admin']],
  ]);
  assert.not.ok(JSON.stringify(h.access.listAccounts(root.principal)).includes('scrypt'));
  assert.ok(await h.access.login('dave', 'a good password', 'c'));
  await h.access.deleteAccount(root.principal, 'dave');
  assert.equal(h.access.listAccounts(root.principal).map((a) => a.username), ['root']);
});

test('without a password, one is generated and returned once', async ({ h }) => {
  const created = await h.access.createAccount(OPERATOR, { username: 'erin', scopes: ['read'] });
  assert.match(created.password ?? '', /^[A-Za-z0-9_-]{24}$/);
  assert.ok(await h.access.login('erin', created.password, 'c'));
});

test('non-admins cannot manage accounts', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  const error = await apiError(() => h.access.createAccount(bob.principal, { username: 'x', password: 'password!', scopes: ['read'] }));
  assert.is(error.code, 'permission_denied');
  assert.is(error.message, 'creating accounts needs the "admin" scope; this credential has: read, write');
  assert.is((await apiError(() => h.access.listAccounts(bob.principal))).code, 'permission_denied');
  assert.is((await apiError(() => h.access.deleteAccount(bob.principal, 'bob'))).code, 'permission_denied');
});

test('account input is checked and names the field', async ({ h }) => {
  await makeAccount(h.access, 'bob', ['read']);
  const cases: [Record<string, unknown>, string, string][] = [
    [{ username: 'bob', password: 'password!', scopes: ['read'] }, 'already_exists', 'account "bob" already exists'],
    [{ username: 'BOB', password: 'password!', scopes: ['read'] }, 'already_exists', 'account "bob" already exists'],
    [{ username: 'no spaces', password: 'password!', scopes: ['read'] }, 'invalid_argument', "username: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"],
    [{ username: 'x', password: 'short', scopes: ['read'] }, 'invalid_argument', 'password: must have at least 8 characters'],
    [{ username: 'x', password: 'p'.repeat(1025), scopes: ['read'] }, 'invalid_argument', 'password: must have at most 1024 characters'],
    [{ username: 'x', password: 'password!', scopes: 'read,superuser' }, 'invalid_argument', 'scopes[1]: unknown scope "superuser"; use read, write or admin'],
    [{ username: 'x', password: 'password!' }, 'invalid_argument', 'scopes: name at least one of read, write, admin'],
  ];
  for (const [input, code, message] of cases) {
    const error = await apiError(() => h.access.createAccount(OPERATOR, input as never));
    assert.is(error.code, code, message);
    assert.is(error.message, message);
  }
});

test('concurrent creations of one name: exactly one wins', async ({ h }) => {
  const results = await Promise.allSettled(
    Array.from({ length: 5 }, (_, i) => h.access.createAccount(OPERATOR, { username: 'race', password: `password-${i}`, scopes: ['read'] })),
  );
  assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.is(h.access.listAccounts(OPERATOR).length, 1);
});

test('an account cannot remove itself, and the last admin cannot be removed', async ({ h }) => {
  const root = await makeAccount(h.access, 'root', ['admin']);
  assert.is((await apiError(() => h.access.deleteAccount(root.principal, 'root'))).code, 'failed_precondition');
  const last = await apiError(() => h.access.deleteAccount(OPERATOR, 'root'));
  assert.is(last.code, 'failed_precondition');
  assert.is(last.message, 'account "root" is the last admin; create another admin first');
  assert.is((await apiError(() => h.access.deleteAccount(OPERATOR, 'ghost'))).code, 'not_found');
  await makeAccount(h.access, 'root2', ['admin']);
  await h.access.deleteAccount(OPERATOR, 'root');
  assert.equal(h.access.listAccounts(OPERATOR).map((a) => a.username), ['root2']);
});

test('an account whose removal is not written stays, with its keys, in memory as in the store; its name comes back as stored', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  const store = h.storage.accounts as unknown as { removeAccount: (...args: unknown[]) => Promise<void> };
  const remove = store.removeAccount;
  store.removeAccount = () => Promise.reject(new Error('disk full'));
  const failed = await h.access.deleteAccount(OPERATOR, 'bob').then(() => undefined, (error: unknown) => error);
  store.removeAccount = remove;
  assert.match(String(failed), /disk full/);
  assert.equal(h.access.listAccounts(OPERATOR).map((a) => a.username), ['bob']);
  assert.is(h.access.authenticate(`Bearer ${key.key}`, 'x').account, 'bob', 'its key still works, as after a restart it would');
  assert.is(await h.access.deleteAccount(OPERATOR, ' Bob '), 'bob');
  assert.equal(h.access.listAccounts(OPERATOR), []);
});

test('password hashes are self-describing scrypt with a random salt, verified in constant time', async () => {
  const cheap = { log2N: 10, r: 8, p: 1 };
  const a = await hashPassword('same password', cheap);
  const b = await hashPassword('same password', cheap);
  assert.match(a, /^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.is.not(a, b);
  assert.ok(await verifyPassword('same password', a));
  assert.not.ok(await verifyPassword('same passwore', a));
  assert.equal(DEFAULT_SCRYPT_COST, { log2N: 15, r: 8, p: 3 });
});

test('accounts hashed at the default cost log in', async ({ h }) => {
  await h.reopen({ scrypt: DEFAULT_SCRYPT_COST });
  await h.access.createAccount(OPERATOR, { username: 'slow', password: 'default cost password', scopes: ['read'] });
  const session = await h.access.login('slow', 'default cost password', 'c');
  assert.is(h.access.authenticate(`Bearer ${session.token}`, 'c').account, 'slow');
});

test.run();
