import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { AdminKeyRefusal } from '../../src/accounts/access.ts';
import { apiError, openHarness } from './support.ts';
import type { Harness } from './support.ts';

const test = suite<{ h: Harness }>('first start: ensureAdmin', { h: undefined as unknown as Harness });

test.before.each(async (context) => {
  context.h = await openHarness();
});
test.after.each(async ({ h }) => {
  await h.close();
  await h.remove();
});

test('an empty store gets an admin account and key, once', async ({ h }) => {
  const first = await h.access.ensureAdmin();
  if (!first.created) throw new Error('expected a new admin');
  assert.is(first.username, 'admin');
  assert.match(first.password, /^[A-Za-z0-9_-]{24}$/);
  assert.match(first.key, /^tms_key_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  const principal = h.access.authenticate(`Bearer ${first.key}`, 'x');
  assert.equal([principal.account, [...principal.scopes]], ['admin', ['read', 'write', 'admin']]);
  assert.ok(await h.access.login('admin', first.password, 'x'));

  assert.equal(await h.access.ensureAdmin(), { created: false });
  await h.reopen();
  assert.equal(await h.access.ensureAdmin(), { created: false });
  assert.is(h.access.authenticate(`Bearer ${first.key}`, 'x').account, 'admin');
});

test('a store with accounts is left alone', async ({ h }) => {
  await h.access.createAccount(OPERATOR, { username: 'ops', password: 'ops password', scopes: ['admin'] });
  assert.equal(await h.access.ensureAdmin(), { created: false });
  assert.equal(h.access.listAccounts(OPERATOR).map((a) => a.username), ['ops']);
});

test('TMS_ADMIN_KEY of any shape becomes the admin key on first start', async ({ h }) => {
  const adminKey = 'operator-chosen-admin-key-0001';
  const first = await h.access.ensureAdmin({ adminKey });
  assert.ok(first.created);
  assert.is(first.created && first.key, adminKey);
  assert.is(h.access.authenticate(`Bearer ${adminKey}`, 'x').account, 'admin');
  await h.reopen();
  assert.equal(await h.access.ensureAdmin({ adminKey }), { created: false });
  assert.is(h.access.authenticate(`Bearer ${adminKey}`, 'x').account, 'admin');
  assert.equal((await h.access.listKeys(OPERATOR)).map((k) => k.name), ['TMS_ADMIN_KEY']);
});

test('a TMS_ADMIN_KEY given only on a later start is accepted too', async ({ h }) => {
  const first = await h.access.ensureAdmin();
  assert.ok(first.created);
  await h.reopen();
  const later = await h.access.ensureAdmin({ adminKey: 'added-on-the-second-start' });
  assert.equal(later, { created: false, notice: 'TMS_ADMIN_KEY was added to account "admin"' });
  assert.is(h.access.authenticate('Bearer added-on-the-second-start', 'x').account, 'admin');
  assert.is(h.access.authenticate(`Bearer ${first.created && first.key}`, 'x').account, 'admin');
  await h.reopen();
  assert.equal(await h.access.ensureAdmin({ adminKey: 'added-on-the-second-start' }), { created: false });
  assert.is((await h.access.listKeys(OPERATOR)).length, 2);
});

test('a revoked TMS_ADMIN_KEY stays revoked', async ({ h }) => {
  const adminKey = 'leaked-admin-key-to-be-revoked';
  await h.access.ensureAdmin({ adminKey });
  const keyId = (await h.access.listKeys(OPERATOR))[0]!.key_id;
  await h.access.revokeKey(OPERATOR, keyId);
  await h.reopen();
  const again = await h.access.ensureAdmin({ adminKey });
  assert.equal(again, { created: false, notice: 'TMS_ADMIN_KEY was revoked and stays revoked' });
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${adminKey}`, 'x'))).code, 'unauthenticated');
});

test('a store whose accounts have no admin scope is left alone, with a notice that says how to make one', async ({ h }) => {
  await h.access.createAccount(OPERATOR, { username: 'zed', password: 'zed password', scopes: ['read'] });
  assert.equal(await h.access.ensureAdmin(), {
    created: false,
    notice: 'no account has the admin scope, so none can manage the others; make one with: tms users create admin --scopes read,write,admin',
  });
  let refused: unknown;
  await h.access.ensureAdmin({ adminKey: 'a-new-admin-key-0123456789' }).catch((error: unknown) => (refused = error));
  assert.instance(refused, AdminKeyRefusal);
  assert.is(
    (refused as Error).message,
    'TMS_ADMIN_KEY is new, and there is no "admin" account with the admin scope to give it to; make one with: tms users create admin --scopes read,write,admin, or unset TMS_ADMIN_KEY',
  );
  assert.equal(h.access.listAccounts(OPERATOR).map((a) => a.username), ['zed']);
});

test('a short TMS_ADMIN_KEY is refused', async ({ h }) => {
  let message = '';
  await h.access.ensureAdmin({ adminKey: 'short' }).catch((error: Error) => (message = error.message));
  assert.is(message, 'TMS_ADMIN_KEY must be at least 16 characters, without spaces');
});

test.run();
