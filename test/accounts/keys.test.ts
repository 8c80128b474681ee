import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_ACTIVE_KEYS } from '../../src/accounts/access.ts';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { apiError, makeAccount, openHarness } from './support.ts';
import type { Harness } from './support.ts';

const test = suite<{ h: Harness }>('API keys', { h: undefined as unknown as Harness });

test.before.each(async (context) => {
  context.h = await openHarness();
});
test.after.each(async ({ h }) => {
  await h.close();
  await h.remove();
});

test('a created key authenticates as its account with its scopes', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  const key = await h.access.createKey(bob.principal, { name: 'ci', scopes: ['read'] });
  assert.match(key.key, new RegExp(`^tms_${key.key_id}_[A-Za-z0-9_-]{43}$`));
  assert.match(key.key_id, /^key_[0-9a-f]{16}$/);
  assert.is(key.account, 'bob');
  assert.equal(key.scopes, ['read']);
  assert.is(key.expires_at, null);
  const principal = h.access.authenticate(`Bearer ${key.key}`, '10.1.1.1');
  assert.equal(
    { account: principal.account, kind: principal.kind, id: principal.credentialId, scopes: [...principal.scopes] },
    { account: 'bob', kind: 'key', id: key.key_id, scopes: ['read'] },
  );
  // The scheme is case-insensitive; surrounding blanks are tolerated.
  assert.is(h.access.authenticate(`bearer  ${key.key} `, 'x').account, 'bob');
});

test('the Authorization header: missing vs anything else that is wrong', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  for (const header of [undefined, '', '   ']) {
    const error = await apiError(() => h.access.authenticate(header, 'x'));
    assert.is(error.code, 'unauthenticated');
    assert.is(error.message, 'missing Authorization: Bearer <API_KEY> header');
  }
  const tampered = key.key.slice(0, -1) + (key.key.endsWith('A') ? 'B' : 'A');
  const wrongId = key.key.replace(key.key_id, 'key_0123456789abcdef');
  for (const header of [`Basic ${key.key}`, key.key, 'Bearer', 'Bearer nonsense', `Bearer ${tampered}`, `Bearer ${wrongId}`, `Bearer ${key.key} extra`]) {
    const error = await apiError(() => h.access.authenticate(header, 'x'));
    assert.is(error.code, 'unauthenticated', header);
    assert.is(error.message, 'invalid or expired credentials', header);
  }
});

test('listing shows keys without secrets, own keys only unless admin', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  const carol = await makeAccount(h.access, 'carol', ['read']);
  const root = await makeAccount(h.access, 'root', ['admin']);
  const b1 = await h.access.createKey(bob.principal, { name: 'one', scopes: ['read'] });
  h.clock.advance(1000);
  const b2 = await h.access.createKey(bob.principal, { name: 'two', scopes: ['write'] });
  const c1 = await h.access.createKey(carol.principal, { name: 'mine', scopes: ['read'] });

  const bobs = await h.access.listKeys(bob.principal);
  assert.equal(bobs.map((k) => k.key_id), [b1.key_id, b2.key_id]);
  for (const listed of bobs) {
    assert.not.ok('key' in listed);
    assert.not.ok('token_sha256' in listed);
    assert.not.ok(JSON.stringify(listed).includes(b1.key.slice(-43)));
  }
  assert.equal((await h.access.listKeys(carol.principal)).map((k) => k.key_id), [c1.key_id]);
  assert.equal(new Set((await h.access.listKeys(root.principal)).map((k) => k.key_id)), new Set([b1.key_id, b2.key_id, c1.key_id]));
  assert.equal((await h.access.listKeys(root.principal, { account: 'carol' })).map((k) => k.key_id), [c1.key_id]);
  const denied = await apiError(() => h.access.listKeys(carol.principal, { account: 'bob' }));
  assert.is(denied.code, 'permission_denied');
});

test('a key has at most the scopes of the credential that creates it', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  const reader = await makeAccount(h.access, 'reader', ['read']);
  const error = await apiError(() => h.access.createKey(reader.principal, { name: 'escalate', scopes: ['write'] }));
  assert.is(error.code, 'permission_denied');
  assert.is(error.message, `scopes: "write" exceeds this credential's scopes (read)`);
  assert.is((await apiError(() => h.access.createKey(bob.principal, { name: 'x', scopes: ['admin'] }))).code, 'permission_denied');
  // write implies read.
  assert.equal((await h.access.createKey(bob.principal, { name: 'rw', scopes: ['read', 'write'] })).scopes, ['read', 'write']);
  // An admin cannot give a key more than its account holds either.
  const admin = await makeAccount(h.access, 'root', ['admin']);
  const beyond = await apiError(() => h.access.createKey(admin.principal, { account: 'bob', name: 'x', scopes: ['admin'] }));
  assert.is(beyond.code, 'invalid_argument');
  assert.is(beyond.message, 'scopes: account "bob" does not hold the "admin" scope');
});

test('an API key without admin makes no keys and revokes only itself; an admin key does both', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  const read = await h.access.createKey(bob.principal, { name: 'read', scopes: ['read'] });
  const write = await h.access.createKey(bob.principal, { name: 'write', scopes: ['read', 'write'] });
  const asKey = (key: { key: string }) => h.access.authenticate(`Bearer ${key.key}`, 'x');

  const minted = await apiError(() => h.access.createKey(asKey(write), { name: 'minted', scopes: ['read'] }));
  assert.is(minted.code, 'permission_denied');
  assert.is(minted.message, 'creating API keys takes a login session or an admin key: an API key without the "admin" scope cannot make another');
  const other = await apiError(() => h.access.revokeKey(asKey(read), write.key_id));
  assert.is(other.code, 'permission_denied');
  assert.is(other.message, 'an API key without the "admin" scope revokes only itself; log in to revoke other keys');
  assert.is(asKey(write).credentialId, write.key_id, 'the key refused a revocation still works');

  assert.is((await h.access.revokeKey(asKey(read), read.key_id)).revoked, true, 'a key may revoke itself');
  assert.throws(() => asKey(read), /invalid or expired credentials/);

  const root = await makeAccount(h.access, 'root', ['read', 'write', 'admin']);
  const adminKey = asKey(await h.access.createKey(root.principal, { name: 'ops', scopes: ['read', 'write', 'admin'] }));
  const forBob = await h.access.createKey(adminKey, { account: 'bob', name: 'by ops', scopes: ['read'] });
  assert.is((await h.access.revokeKey(adminKey, forBob.key_id)).revoked, true);
  assert.is((await h.access.revokeKey(adminKey, write.key_id)).revoked, true);
});

test('keys for another account need admin', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  await makeAccount(h.access, 'carol', ['read']);
  const denied = await apiError(() => h.access.createKey(bob.principal, { account: 'carol', name: 'x', scopes: ['read'] }));
  assert.is(denied.code, 'permission_denied');
  const admin = await makeAccount(h.access, 'root', ['admin']);
  const key = await h.access.createKey(admin.principal, { account: 'carol', name: 'for carol', scopes: ['read'] });
  assert.is(key.account, 'carol');
  assert.is(key.created_by, 'root');
  assert.is(h.access.authenticate(`Bearer ${key.key}`, 'x').account, 'carol');
});

test('bad input names the field', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const cases: [Record<string, unknown>, string][] = [
    [{ name: '', scopes: ['read'] }, 'name: is required'],
    [{ name: 'x', scopes: [] }, 'scopes: name at least one of read, write, admin'],
    [{ name: 'ci\nkey_fake  admin', scopes: ['read'] }, "name: holds a control character (\\n); a key's name is shown in tables and lists"],
    [{ name: 'red \u001b[31m', scopes: ['read'] }, "name: holds a control character (\\u001b); a key's name is shown in tables and lists"],
    [{ name: 'abc\u202edef', scopes: ['read'] }, "name: holds a control character (\\u202e); a key's name is shown in tables and lists"],
    [{ name: 'x', scopes: ['read', 'root'] }, 'scopes[1]: unknown scope "root"; use read, write or admin'],
    [{ name: 'x', scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at: not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset): got "tomorrow": expected a 4-digit year but found "t" at character 1'],
    [{ name: 'x', scopes: ['read'], expires_at: 7 }, 'expires_at: not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset): got number, not a string'],
    [{ name: 'x', scopes: ['read'], expires_at: '2099-02-30T00:00:00Z' }, 'expires_at: not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset): got "2099-02-30T00:00:00Z": day 30 is out of range 01-28 for this month'],
    [{ name: 'x', scopes: ['read'], expires_at: '2099-01-01T00:00:00' }, 'expires_at: not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset): got "2099-01-01T00:00:00": a UTC offset is required (Z or ±HH:MM)'],
    [{ name: 'x', scopes: ['read'], expires_at: '+999999999-01-01T00:00:00Z' }, 'expires_at: must be before 10000-01-01T00:00:00Z'],
    [{ name: 'x', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at: must be in the future'],
  ];
  for (const [input, message] of cases) {
    const error = await apiError(() => h.access.createKey(bob.principal, input as never));
    assert.is(error.code, 'invalid_argument');
    assert.is(error.message, message);
  }
});

test('a revoked key is refused at once, and after a restart', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  assert.is(h.access.authenticate(`Bearer ${key.key}`, 'x').account, 'bob');
  const pending = h.access.revokeKey(bob.principal, key.key_id);
  // Refused from the call on, before the write has even finished.
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${key.key}`, 'x'))).message, 'invalid or expired credentials');
  const revoked = await pending;
  assert.is(revoked.revoked, true);
  assert.is(revoked.revoked_at, new Date(h.clock.ms).toISOString());
  await h.reopen();
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${key.key}`, 'x'))).code, 'unauthenticated');
  assert.is((await h.access.listKeys(OPERATOR))[0]?.revoked, true);
});

test("another account's key cannot be revoked, nor its existence learnt", async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const carol = await makeAccount(h.access, 'carol', ['read', 'write']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  const theirs = await apiError(() => h.access.revokeKey(carol.principal, key.key_id));
  const none = await apiError(() => h.access.revokeKey(carol.principal, 'key_0000000000000000'));
  assert.is(theirs.code, 'not_found');
  assert.is(none.code, 'not_found');
  assert.is(h.access.authenticate(`Bearer ${key.key}`, 'x').account, 'bob');
  const admin = await makeAccount(h.access, 'root', ['admin']);
  await h.access.revokeKey(admin.principal, key.key_id);
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${key.key}`, 'x'))).code, 'unauthenticated');
});

test(`an account holds at most ${MAX_ACTIVE_KEYS} active keys; revoked and expired ones leave room`, async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const soon = new Date(h.clock.ms + 60_000).toISOString();
  const made = [];
  for (let i = 0; i < MAX_ACTIVE_KEYS - 1; i++) made.push(await h.access.createKey(bob.principal, { name: `k${i}`, scopes: ['read'] }));
  await h.access.createKey(bob.principal, { name: 'brief', scopes: ['read'], expires_at: soon });
  const full = await apiError(() => h.access.createKey(bob.principal, { name: 'one more', scopes: ['read'] }));
  assert.is(full.code, 'resource_exhausted');
  assert.is(full.message, `an account holds at most ${MAX_ACTIVE_KEYS} active API keys; revoke some first`);
  const carol = await makeAccount(h.access, 'carol', ['read']);
  assert.ok(await h.access.createKey(carol.principal, { name: 'hers', scopes: ['read'] }), 'another account is not held by it');
  await h.access.revokeKey(bob.principal, made[0]!.key_id);
  assert.ok(await h.access.createKey(bob.principal, { name: 'after a revocation', scopes: ['read'] }));
  assert.is((await apiError(() => h.access.createKey(bob.principal, { name: 'full again', scopes: ['read'] }))).code, 'resource_exhausted');
  h.clock.advance(60_000);
  assert.ok(await h.access.createKey(bob.principal, { name: 'after an expiry', scopes: ['read'] }));
});

test('an expiry with an offset and nanoseconds is kept in UTC, to the millisecond', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'offset', scopes: ['read'], expires_at: '2099-01-01T01:30:00.123456789+01:30' });
  assert.is(key.expires_at, '2099-01-01T00:00:00.123Z');
});

test('a key stops working when it expires', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const expires = new Date(h.clock.ms + 30 * 86_400_000).toISOString();
  const key = await h.access.createKey(bob.principal, { name: 'month', scopes: ['read'], expires_at: expires });
  assert.is(key.expires_at, expires);
  h.clock.advance(30 * 86_400_000 - 1);
  assert.is(h.access.authenticate(`Bearer ${key.key}`, 'x').account, 'bob');
  h.clock.advance(1);
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${key.key}`, 'x'))).message, 'invalid or expired credentials');
});

test('last use is recorded in memory at once and written in batches, not per request', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  assert.is((await h.access.listKeys(bob.principal))[0]?.last_used_at, null);
  h.clock.advance(5000);
  for (let i = 0; i < 1000; i++) h.access.authenticate(`Bearer ${key.key}`, '203.0.113.9');
  const listed = (await h.access.listKeys(bob.principal))[0]!;
  assert.is(listed.last_used_at, new Date(h.clock.ms).toISOString());
  assert.is(listed.last_used_from, '203.0.113.9');
  await h.reopen(); // close() flushes
  assert.is((await h.access.listKeys(OPERATOR))[0]?.last_used_at, new Date(h.clock.ms).toISOString());
});

test('keys and accounts come back after a restart', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read', 'write']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['write'] });
  await h.reopen();
  assert.equal([...h.access.authenticate(`Bearer ${key.key}`, 'x').scopes], ['write']);
  assert.equal(h.access.listAccounts(OPERATOR).map((a) => a.username), ['bob']);
});

test("removing an account removes its keys, which stop working at once", async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  await h.access.deleteAccount(OPERATOR, 'bob');
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${key.key}`, 'x'))).code, 'unauthenticated');
  await h.reopen();
  assert.equal(await h.access.listKeys(OPERATOR), []);
  // A new account of the same name does not inherit them.
  await makeAccount(h.access, 'bob', ['read']);
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${key.key}`, 'x'))).code, 'unauthenticated');
});

test('a header value that authenticated before is checked again against the live credential each time', async ({ h }) => {
  const bob = await makeAccount(h.access, 'bob', ['read']);
  const key = await h.access.createKey(bob.principal, { name: 'k', scopes: ['read'] });
  const session = await h.access.login('bob', bob.password, 'x');
  for (const token of [key.key, session.token]) assert.is(h.access.authenticate(`Bearer ${token}`, 'x').account, 'bob');
  await h.access.deleteAccount(OPERATOR, 'bob');
  for (const token of [key.key, session.token]) {
    assert.is((await apiError(() => h.access.authenticate(`Bearer ${token}`, 'x'))).code, 'unauthenticated', token);
  }
  await makeAccount(h.access, 'bob', ['read']);
  for (const token of [key.key, session.token]) {
    assert.is((await apiError(() => h.access.authenticate(`Bearer ${token}`, 'x'))).code, 'unauthenticated', token);
  }
});

test.run();
