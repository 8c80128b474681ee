import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { apiError, openHarness } from './support.ts';
import type { Harness } from './support.ts';

const test = suite<{ h: Harness }>('login, sessions and lockout', { h: undefined as unknown as Harness });

test.before.each(async (context) => {
  context.h = await openHarness({ throttle: { lockMs: 60_000, maxLockMs: 15 * 60_000 } });
  await context.h.access.createAccount(OPERATOR, { username: 'alice', password: 'correct horse battery', scopes: ['read', 'write'] });
});
test.after.each(async ({ h }) => {
  await h.close();
  await h.remove();
});

const retryAfter = (error: { errorDetails: { debug: Record<string, unknown> }[] }): unknown => error.errorDetails[0]?.debug.retry_after_seconds;

test('login returns a session token that authenticates as the account until logout', async ({ h }) => {
  const session = await h.access.login('alice', 'correct horse battery', '10.0.0.1');
  assert.match(session.token, /^tms_ses_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  assert.is(session.expires_at, new Date(h.clock.ms + 3_600_000).toISOString());
  assert.equal(session.scopes, ['read', 'write']);
  const principal = h.access.authenticate(`Bearer ${session.token}`, '10.0.0.1');
  assert.is(principal.account, 'alice');
  assert.is(principal.kind, 'session');
  assert.equal([...principal.scopes], ['read', 'write']);

  await h.access.logout(session.token);
  const error = await apiError(() => h.access.authenticate(`Bearer ${session.token}`, '10.0.0.1'));
  assert.is(error.code, 'unauthenticated');
  assert.is(error.message, 'invalid or expired credentials');
});

test('usernames are case-insensitive at login', async ({ h }) => {
  const session = await h.access.login('  Alice ', 'correct horse battery', '10.0.0.1');
  assert.is(h.access.authenticate(`Bearer ${session.token}`, 'x').account, 'alice');
});

test('sessions survive a restart and expire after an hour', async ({ h }) => {
  const session = await h.access.login('alice', 'correct horse battery', '10.0.0.1');
  await h.reopen();
  assert.is(h.access.authenticate(`Bearer ${session.token}`, 'x').account, 'alice');
  h.clock.advance(3_600_000 - 1);
  assert.is(h.access.authenticate(`Bearer ${session.token}`, 'x').account, 'alice');
  h.clock.advance(1);
  const error = await apiError(() => h.access.authenticate(`Bearer ${session.token}`, 'x'));
  assert.is(error.message, 'invalid or expired credentials');
});

test('logged-out sessions stay logged out after a restart', async ({ h }) => {
  const session = await h.access.login('alice', 'correct horse battery', '10.0.0.1');
  await h.access.logout(`Bearer ${session.token}`);
  await h.reopen();
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${session.token}`, 'x'))).code, 'unauthenticated');
  assert.is((await apiError(() => h.access.logout(session.token))).code, 'unauthenticated');
});

test('a login that fails inside the password check still settles: the account locks for a while, not for ever', async ({ h }) => {
  // A damaged stored hash makes the check itself throw (the record is changed in memory to simulate it).
  const accounts = (h.access as unknown as { accounts: Map<string, { password_hash: string }> }).accounts;
  accounts.get('alice')!.password_hash = 'damaged';
  const failure = (client: string) =>
    h.access.login('alice', 'correct horse battery', client).then(
      (): never => {
        throw new Error('a damaged hash cannot log in');
      },
      (error: Error & { code?: string }) => error,
    );
  for (let i = 0; i < 10; i++) {
    const error = await failure(`10.0.1.${i}`);
    assert.match(error.message, /unknown format/, `attempt ${i + 1} is checked`);
  }
  assert.is((await failure('10.0.2.1')).code, 'resource_exhausted');
  h.clock.advance(60_000);
  assert.match((await failure('10.0.2.2')).message, /unknown format/, 'the lock ended: the password is checked again');
});

test('logins turned away while the password thread is busy are resource_exhausted with a retry hint, and not counted as failures', async ({ h }) => {
  await h.reopen({ throttle: { clientLimit: 40, accountLimit: 10 } });
  const burst = await Promise.all(
    Array.from({ length: 30 }, (_, i) => apiError(() => h.access.login(`ghost-${i}`, 'some guess', '10.7.7.7'))),
  );
  const checked = burst.filter((error) => error.code === 'unauthenticated').length;
  const busy = burst.filter((error) => error.code === 'resource_exhausted');
  assert.is(checked + busy.length, 30);
  assert.ok(busy.length > 0, 'some were turned away');
  for (const error of busy) {
    assert.match(error.message, /too many passwords are being checked right now/);
    assert.ok(Number(retryAfter(error)) >= 1, 'with a retry hint');
  }
  // Only the checked ones count against the client: it has 40 - checked failures left before its lock.
  for (let i = 0; i < 40 - checked; i++) {
    assert.is((await apiError(() => h.access.login(`ghost-after-${i}`, 'some guess', '10.7.7.7'))).code, 'unauthenticated', `failure ${checked + i + 1}`);
  }
  assert.is((await apiError(() => h.access.login('ghost-last', 'some guess', '10.7.7.7'))).code, 'resource_exhausted', 'the client is now locked');
});

test('an unknown user turned away while the password thread was busy is checked like any other once it is free', async ({ h }) => {
  await h.reopen({ throttle: { clientLimit: 100, accountLimit: 100 } });
  const guesses = Array.from({ length: 30 }, () => apiError(() => h.access.login('alice', 'wrong horse battery', '10.8.8.8')));
  const first = await apiError(() => h.access.login('nobody', 'some guess', '10.9.9.9'));
  assert.is(first.code, 'resource_exhausted', 'turned away: the thread is busy with alice\'s guesses');
  await Promise.all(guesses);
  const later = await apiError(() => h.access.login('nobody', 'some guess', '10.9.9.9'));
  assert.is(later.code, 'unauthenticated', `checked, as a wrong password is (got ${later.code}: ${later.message})`);
});

test('an unknown user and a wrong password get the very same 401', async ({ h }) => {
  const unknown = await apiError(() => h.access.login('mallory', 'correct horse battery', '10.0.0.1'));
  const wrong = await apiError(() => h.access.login('alice', 'wrong horse battery', '10.0.0.2'));
  assert.is(unknown.code, 'unauthenticated');
  assert.is(wrong.code, unknown.code);
  assert.is(wrong.message, unknown.message);
  assert.equal(wrong.errorDetails, unknown.errorDetails);
});

test('missing fields are invalid_argument naming the field', async ({ h }) => {
  assert.is((await apiError(() => h.access.login('', 'x', 'c'))).message, 'username: is required');
  assert.is((await apiError(() => h.access.login('alice', undefined, 'c'))).message, 'password: is required');
});

test('10 failures in a row lock the account with a retry-after; the lock expires', async ({ h }) => {
  for (let i = 0; i < 10; i++) {
    const error = await apiError(() => h.access.login('alice', `guess ${i}`, `10.0.1.${i}`));
    assert.is(error.code, 'unauthenticated', `attempt ${i + 1}`);
  }
  // Locked: even the right password is refused, from any address.
  const locked = await apiError(() => h.access.login('alice', 'correct horse battery', '10.9.9.9'));
  assert.is(locked.code, 'resource_exhausted');
  assert.is(locked.errorDetails[0]?.type, 'tms.v1.RetryInfo');
  assert.is(retryAfter(locked), 60);
  assert.match(locked.message, 'try again in 60 seconds');

  h.clock.advance(45_000);
  assert.is(retryAfter(await apiError(() => h.access.login('alice', 'correct horse battery', '10.9.9.9'))), 15);
  h.clock.advance(15_000);
  const session = await h.access.login('alice', 'correct horse battery', '10.9.9.9');
  assert.ok(session.token);
});

test('each repeated lock doubles, up to the maximum; a success resets', async ({ h }) => {
  const failTen = async () => {
    for (let i = 0; i < 10; i++) await apiError(() => h.access.login('alice', 'nope nope', `10.0.2.${i}`));
  };
  const expected = [60, 120, 240, 480, 900, 900];
  for (const seconds of expected) {
    await failTen();
    assert.is(retryAfter(await apiError(() => h.access.login('alice', 'nope nope', '10.0.3.1'))), seconds);
    h.clock.advance(seconds * 1000);
  }
  await h.access.login('alice', 'correct horse battery', '10.0.3.1');
  await failTen();
  assert.is(retryAfter(await apiError(() => h.access.login('alice', 'nope nope', '10.0.3.1'))), 60);
});

test('a success in between resets the count of failures in a row', async ({ h }) => {
  for (let i = 0; i < 9; i++) await apiError(() => h.access.login('alice', 'nope nope', '10.0.4.1'));
  await h.access.login('alice', 'correct horse battery', '10.0.4.1');
  for (let i = 0; i < 9; i++) await apiError(() => h.access.login('alice', 'nope nope', '10.0.4.1'));
  assert.ok(await h.access.login('alice', 'correct horse battery', '10.0.4.1'));
});

test('unknown usernames lock like real ones (a lock says nothing about existence)', async ({ h }) => {
  for (let i = 0; i < 10; i++) await apiError(() => h.access.login('nobody', 'nope nope', `10.0.5.${i}`));
  assert.is((await apiError(() => h.access.login('nobody', 'nope nope', '10.0.6.1'))).code, 'resource_exhausted');
});

test('20 failures from one client address lock that address for every account', async ({ h }) => {
  for (let i = 0; i < 20; i++) {
    const error = await apiError(() => h.access.login(`user${i % 5}`, 'nope nope', '192.0.2.7'));
    assert.is(error.code, 'unauthenticated', `attempt ${i + 1}`);
  }
  const locked = await apiError(() => h.access.login('alice', 'correct horse battery', '192.0.2.7'));
  assert.is(locked.code, 'resource_exhausted');
  assert.is(retryAfter(locked), 60);
  // Another address is not affected.
  assert.ok(await h.access.login('alice', 'correct horse battery', '192.0.2.8'));
  h.clock.advance(60_000);
  assert.ok(await h.access.login('alice', 'correct horse battery', '192.0.2.7'));
});

test("logging into one's own account between guesses does not clear the address's failures on other accounts", async ({ h }) => {
  await h.access.createAccount(OPERATOR, { username: 'bob', password: 'bob battery staple', scopes: ['read'] });
  const attacker = '192.0.2.20';
  // 19 guesses at five other names (under the per-account limit of 10), with alice's own login after every fifth.
  for (let i = 0; i < 19; i++) {
    const error = await apiError(() => h.access.login(i % 5 === 0 ? 'bob' : `user${i % 5}`, `guess ${i}`, attacker));
    assert.is(error.code, 'unauthenticated', `guess ${i + 1}`);
    if (i % 5 === 4) assert.ok(await h.access.login('alice', 'correct horse battery', attacker));
  }
  // The 20th failure locks the address, even for the account it holds the password of.
  await apiError(() => h.access.login('bob', 'guess 20', attacker));
  const locked = await apiError(() => h.access.login('alice', 'correct horse battery', attacker));
  assert.is(locked.code, 'resource_exhausted');
  assert.is(retryAfter(locked), 60);
  assert.is((await apiError(() => h.access.login('bob', 'bob battery staple', attacker))).code, 'resource_exhausted');
  // bob is not locked as an account: from elsewhere he logs in.
  assert.ok(await h.access.login('bob', 'bob battery staple', '192.0.2.21'));
});

test("a success takes back exactly the address's failures on that account", async ({ h }) => {
  const office = '192.0.2.30';
  for (let i = 0; i < 15; i++) await apiError(() => h.access.login(`user${i % 3}`, 'nope nope', office));
  // Four typos of alice's own password, then the right one: those four are forgiven, the 15 others are not.
  for (let i = 0; i < 4; i++) await apiError(() => h.access.login('alice', `typo ${i}`, office));
  assert.ok(await h.access.login('alice', 'correct horse battery', office));
  for (let i = 0; i < 4; i++) {
    assert.is((await apiError(() => h.access.login('user3', 'nope nope', office))).code, 'unauthenticated', `failure ${16 + i}`);
  }
  assert.is((await apiError(() => h.access.login('user4', 'nope nope', office))).code, 'unauthenticated', 'the 20th counts');
  assert.is((await apiError(() => h.access.login('alice', 'correct horse battery', office))).code, 'resource_exhausted');
});

test('the right password as the attempt that reaches the limit logs in and locks nothing', async ({ h }) => {
  const address = '192.0.2.40';
  for (let i = 0; i < 19; i++) await apiError(() => h.access.login(`user${i % 4}`, 'nope nope', address));
  assert.ok(await h.access.login('alice', 'correct horse battery', address), 'the 20th attempt');
  assert.ok(await h.access.login('alice', 'correct horse battery', address), 'still not locked');
  // The 19 failures are still counted: one more locks the address.
  await apiError(() => h.access.login('user5', 'nope nope', address));
  assert.is((await apiError(() => h.access.login('alice', 'correct horse battery', address))).code, 'resource_exhausted');
});

test('a first lock longer than 15 minutes is not cut short by the default maximum', async ({ h }) => {
  await h.reopen({ throttle: { lockMs: 40 * 60_000 } });
  for (let i = 0; i < 10; i++) await apiError(() => h.access.login('alice', 'nope nope', `10.0.9.${i}`));
  assert.is(retryAfter(await apiError(() => h.access.login('alice', 'correct horse battery', '10.0.9.99'))), 40 * 60);
  h.clock.advance(40 * 60_000);
  assert.ok(await h.access.login('alice', 'correct horse battery', '10.0.9.99'));
});

test('the session lifetime is an option', async ({ h }) => {
  await h.reopen({ sessionTtlMs: 90_000 });
  const session = await h.access.login('alice', 'correct horse battery', '10.0.10.1');
  assert.is(session.expires_at, new Date(h.clock.ms + 90_000).toISOString());
  h.clock.advance(89_999);
  assert.is(h.access.authenticate(`Bearer ${session.token}`, 'x').account, 'alice');
  h.clock.advance(1);
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${session.token}`, 'x'))).message, 'invalid or expired credentials');
});

test('parallel guesses cannot outrun the limit', async ({ h }) => {
  const results = await Promise.allSettled(
    Array.from({ length: 30 }, (_, i) => h.access.login('alice', `parallel ${i}`, `10.0.7.${i}`)),
  );
  const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'));
  assert.is(codes.filter((c) => c === 'unauthenticated').length, 10);
  assert.is(codes.filter((c) => c === 'resource_exhausted').length, 20);
});

test('logout refuses API keys and unknown tokens', async ({ h }) => {
  const key = await h.access.createKey(OPERATOR, { account: 'alice', name: 'ci', scopes: ['read'] });
  const error = await apiError(() => h.access.logout(key.key));
  assert.is(error.code, 'failed_precondition');
  assert.is(h.access.authenticate(`Bearer ${key.key}`, 'x').account, 'alice');
  assert.is((await apiError(() => h.access.logout('tms_ses_0000000000000000_' + 'A'.repeat(43)))).code, 'unauthenticated');
});

test('removing an account ends its sessions at once', async ({ h }) => {
  const session = await h.access.login('alice', 'correct horse battery', '10.0.8.1');
  await h.access.deleteAccount(OPERATOR, 'alice');
  assert.is((await apiError(() => h.access.authenticate(`Bearer ${session.token}`, 'x'))).code, 'unauthenticated');
  assert.is((await apiError(() => h.access.login('alice', 'correct horse battery', '10.0.8.1'))).code, 'unauthenticated');
});

test.run();
