// Issue 5's account flows against a real server, over REST and gRPC: login and logout, lockout, API keys
// (scopes, expiry, revocation, listing with last use), admin-only accounts, and at the end a scan of every
// byte of the data directory for every secret the flows used. Then, on servers with a short session
// lifetime and lock: sessions expiring, locks ending, and the per-address lock.
import { rm } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Level } from 'level';
import { ADMIN_KEY, call, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';
import { UNISSUED_KEY, createKey, login, secretsInFiles, sleep, startSeededServer, type SeedAccount } from '../support/accounts.ts';

const ALICE: SeedAccount = { username: 'alice', password: 'alice-password-0001', scopes: ['read', 'write'] };
const BOB: SeedAccount = { username: 'bob', password: 'bob-password-0002', scopes: ['read', 'write'] };
const READER: SeedAccount = { username: 'reader', password: 'reader-password-0003', scopes: ['read'] };
const LOCKED: SeedAccount = { username: 'locked', password: 'locked-password-0004', scopes: ['read'] };

const SESSION_TOKEN = /^tms_ses_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
const KEY_TOKEN = /^tms_key_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/;
const INVALID_CREDENTIALS = { code: 'unauthenticated', message: 'invalid or expired credentials' };
const KEY_FIELDS = ['account', 'created_at', 'expires_at', 'key_id', 'last_used_at', 'name', 'scopes'];

interface Context {
  server: TestServer;
  /** Every password, key and token the flows used: none may reach the disk. */
  secrets: string[];
  closed: boolean;
}

const flows = suite<Context>('accounts over HTTP and gRPC');
flows.before(async (ctx) => {
  ctx.server = await startSeededServer([ALICE, BOB, READER, LOCKED]);
  ctx.secrets = [ADMIN_KEY, ALICE.password, BOB.password, READER.password, LOCKED.password];
  ctx.closed = false;
});
flows.after(async (ctx) => {
  if (!ctx.closed) await ctx.server.stop();
  else await rm(ctx.server.dataDir, { recursive: true, force: true });
});

/** A session token for a seeded account, remembered as a secret. */
async function sessionOf(ctx: Context, account: SeedAccount): Promise<string> {
  const { token } = await login(ctx.server, account.username, account.password);
  ctx.secrets.push(token);
  return token;
}

async function keyOf(ctx: Context, bearer: string, body: Parameters<typeof createKey>[2]) {
  const key = await createKey(ctx.server, bearer, body);
  ctx.secrets.push(key.key);
  return key;
}

const secondsUntil = (iso: string): number => (Date.parse(iso) - Date.now()) / 1000;

/** An error body with each detail's binary `value` checked present and left out, to compare the rest exactly. */
function withoutValues(body: { details?: { value?: unknown }[] }): unknown {
  if (!body.details) return body;
  return {
    ...body,
    details: body.details.map(({ value, ...rest }) => {
      assert.type(value, 'string');
      return rest;
    }),
  };
}

// ------------------------------------------------------------------ login and logout

flows('login returns exactly {token, expires_at} an hour ahead; the token works until logout, then 401', async (ctx) => {
  const res = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'alice', password: ALICE.password }, key: null });
  assert.is(res.status, 200, res.text);
  assert.equal(Object.keys(res.json).sort(), ['expires_at', 'token']);
  const { token, expires_at: expiresAt } = res.json as { token: string; expires_at: string };
  ctx.secrets.push(token);
  assert.match(token, SESSION_TOKEN);
  assert.ok(Math.abs(secondsUntil(expiresAt) - 3600) < 30, `expires_at ${expiresAt} is an hour ahead`);

  const mine = await call(ctx.server, 'POST', '/v1/create-timeline', { body: { description: 'alice by session' }, key: token });
  assert.is(mine.status, 200, mine.text);
  assert.is(mine.json.timeline.owner, 'alice');

  const out = await call(ctx.server, 'POST', '/v1/logout', { key: token });
  assert.is(out.status, 200, out.text);
  assert.equal(out.json, { status: 'Logged out' });
  const after = await call(ctx.server, 'GET', '/v1/timelines', { key: token });
  assert.is(after.status, 401);
  assert.equal(after.json, INVALID_CREDENTIALS);
  const again = await call(ctx.server, 'POST', '/v1/logout', { key: token });
  assert.is(again.status, 401);
  assert.equal(again.json, INVALID_CREDENTIALS);
});

flows('login and logout over gRPC: the token is a bearer on every face', async (ctx) => {
  const session = await grpcCall(ctx.server.port, 'tms.v1.AccountService.Login', { username: 'bob', password: BOB.password }, null);
  assert.is(session.codeName, 'ok', session.message);
  const token: string = session.json.token;
  ctx.secrets.push(token);
  assert.match(token, SESSION_TOKEN);
  assert.is((await call(ctx.server, 'GET', '/v1/keys', { key: token })).status, 200);

  const out = await grpcCall(ctx.server.port, 'tms.v1.AccountService.Logout', {}, token);
  assert.is(out.codeName, 'ok', out.message);
  assert.is(out.json.status, 'Logged out');
  const refused = await grpcCall(ctx.server.port, 'tms.v1.AccountService.ListKeys', {}, token);
  assert.is(refused.codeName, 'unauthenticated');
  assert.is(refused.message, INVALID_CREDENTIALS.message);
  assert.is((await call(ctx.server, 'GET', '/v1/keys', { key: token })).status, 401);
});

flows('an unknown user and a wrong password get the very same 401, on REST and on gRPC', async (ctx) => {
  const unknown = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'nobody', password: ALICE.password }, key: null });
  const wrong = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'alice', password: 'not-alices-password' }, key: null });
  ctx.secrets.push('not-alices-password');
  assert.is(unknown.status, 401);
  assert.is(wrong.status, 401);
  assert.equal(wrong.json, unknown.json);
  assert.equal(unknown.json, { code: 'unauthenticated', message: 'invalid username or password' });

  const unknownRpc = await grpcCall(ctx.server.port, 'tms.v1.AccountService.Login', { username: 'nobody', password: 'x-password' }, null);
  const wrongRpc = await grpcCall(ctx.server.port, 'tms.v1.AccountService.Login', { username: 'alice', password: 'x-password' }, null);
  assert.equal([unknownRpc.codeName, unknownRpc.message], ['unauthenticated', 'invalid username or password']);
  assert.equal([wrongRpc.codeName, wrongRpc.message], [unknownRpc.codeName, unknownRpc.message]);
  // A success takes back this address's failures on alice only: the two on "nobody" still count towards its 20.
  await sessionOf(ctx, ALICE);
});

flows('ten failures lock the account: 429 with a numeric Retry-After, even for the right password, counting down', async (ctx) => {
  for (let attempt = 1; attempt <= 10; attempt++) {
    const res = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'locked', password: `guess-${attempt}` }, key: null });
    assert.is(res.status, 401, `attempt ${attempt}: ${res.text}`);
  }
  const locked = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'locked', password: LOCKED.password }, key: null });
  assert.is(locked.status, 429, locked.text);
  assert.is(locked.json.code, 'resource_exhausted');
  const retryAfter = String(locked.headers['retry-after']);
  assert.match(retryAfter, /^\d+$/);
  // The first lock lasts a minute (README: doubling per repeat, at most 15 minutes), less what a loaded machine took since.
  assert.ok(Number(retryAfter) >= 50 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
  assert.is(locked.json.message, `too many failed logins; try again in ${retryAfter} seconds`);

  const rpc = await grpcCall(ctx.server.port, 'tms.v1.AccountService.Login', { username: 'LOCKED', password: LOCKED.password }, null);
  assert.is(rpc.codeName, 'resource_exhausted', 'the lock holds on every face and ignores case');
  // gRPC clients read the wait from the retry-after trailer, as REST clients do from the header.
  const rpcRetryAfter = rpc.trailers['retry-after'] ?? '';
  assert.match(rpcRetryAfter, /^\d+$/);
  assert.ok(Number(rpcRetryAfter) >= 50 && Number(rpcRetryAfter) <= 60, `retry-after ${rpcRetryAfter}`);
  assert.is(rpc.message, `too many failed logins; try again in ${rpcRetryAfter} seconds`);

  // The lock is a deadline, not a flag: a little later there is less to wait. (Its end is tested below, on a
  // server with a short TMS_LOGIN_LOCK_MS.)
  await sleep(1100);
  const later = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'locked', password: LOCKED.password }, key: null });
  assert.is(later.status, 429);
  assert.ok(Number(later.headers['retry-after']) < Number(retryAfter), `${String(later.headers['retry-after'])} < ${retryAfter}`);

  // Only that account: others log in from the same address.
  assert.match(await sessionOf(ctx, READER), SESSION_TOKEN);
});

// ------------------------------------------------------------------ API keys

flows('a key is shown once, works at once, and is listed without any secret, with its last use', async (ctx) => {
  const session = await sessionOf(ctx, ALICE);
  const created = await call(ctx.server, 'POST', '/v1/keys', { body: { name: 'ci', scopes: ['read'] }, key: session });
  assert.is(created.status, 200, created.text);
  ctx.secrets.push(created.json.key);
  assert.match(created.json.key, KEY_TOKEN);
  assert.equal(Object.keys(created.json).sort(), ['account', 'created_at', 'expires_at', 'key', 'key_id', 'name', 'scopes']);
  assert.equal([created.json.account, created.json.name, created.json.scopes, created.json.expires_at], ['alice', 'ci', ['read'], '']);

  const before = await call(ctx.server, 'GET', '/v1/keys', { key: session });
  const listedBefore = before.json.keys.find((k: { key_id: string }) => k.key_id === created.json.key_id);
  assert.equal(Object.keys(listedBefore).sort(), KEY_FIELDS);
  assert.is(listedBefore.last_used_at, '', 'never used yet');
  assert.not.ok(before.text.includes(created.json.key), 'the listing holds no secret');

  const used = await call(ctx.server, 'GET', '/v1/timelines', { key: created.json.key });
  assert.is(used.status, 200);
  const after = await call(ctx.server, 'GET', '/v1/keys', { key: session });
  const listedAfter = after.json.keys.find((k: { key_id: string }) => k.key_id === created.json.key_id);
  assert.ok(Math.abs(secondsUntil(listedAfter.last_used_at)) < 30, `last_used_at ${listedAfter.last_used_at} is now`);
  // Alice sees only hers; no listing anywhere carries a secret.
  assert.ok(after.json.keys.every((k: { account: string }) => k.account === 'alice'));
  for (const secret of ctx.secrets) assert.not.ok(after.text.includes(secret), 'no secret in the listing');
  const all = await call(ctx.server, 'GET', '/v1/keys', { key: ADMIN_KEY });
  assert.ok(all.json.keys.some((k: { account: string }) => k.account === 'admin'), 'admin lists every account');
  for (const secret of ctx.secrets) assert.not.ok(all.text.includes(secret), "no secret in the admin's listing");
  const rpc = await grpcCall(ctx.server.port, 'tms.v1.AccountService.ListKeys', {}, session);
  assert.is(rpc.codeName, 'ok');
  // proto JSON leaves empty fields out; none beyond the listed ones, and never the secret.
  for (const listed of rpc.json.keys) assert.ok(Object.keys(listed).every((field) => KEY_FIELDS.includes(field)), Object.keys(listed).join());
  for (const secret of ctx.secrets) assert.not.ok(JSON.stringify(rpc.json).includes(secret), 'no secret over gRPC');
});

flows('scopes above the caller are refused with 403; above the account with 400', async (ctx) => {
  const session = await sessionOf(ctx, ALICE);
  const readKey = await keyOf(ctx, session, { name: 'read only', scopes: ['read'] });
  const up = await call(ctx.server, 'POST', '/v1/keys', { body: { name: 'up', scopes: ['write'] }, key: readKey.key });
  assert.is(up.status, 403, up.text);
  assert.equal(up.json, {
    code: 'permission_denied',
    message: 'creating API keys takes a login session or an admin key: an API key without the "admin" scope cannot make another',
  });
  const admin = await call(ctx.server, 'POST', '/v1/keys', { body: { name: 'admin', scopes: ['read', 'admin'] }, key: session });
  assert.is(admin.status, 403, admin.text);
  assert.is(admin.json.code, 'permission_denied');
  const reader = await sessionOf(ctx, READER);
  const readerUp = await grpcCall(ctx.server.port, 'tms.v1.AccountService.CreateKey', { name: 'w', scopes: ['write'] }, reader);
  assert.is(readerUp.codeName, 'permission_denied');
  // An admin may issue keys for another account, but never beyond what that account holds.
  const forReader = await call(ctx.server, 'POST', '/v1/keys', { body: { name: 'w', scopes: ['write'], account: 'reader' }, key: ADMIN_KEY });
  assert.is(forReader.status, 400, forReader.text);
  assert.equal(withoutValues(forReader.json), {
    code: 'invalid_argument',
    message: 'scopes: account "reader" does not hold the "write" scope',
    details: [{ type: 'tms.v1.FieldViolation', debug: { field: 'scopes', description: 'account "reader" does not hold the "write" scope' } }],
  });
  // Another account's keys are not a non-admin's to issue.
  const forBob = await call(ctx.server, 'POST', '/v1/keys', { body: { name: 'x', scopes: ['read'], account: 'bob' }, key: session });
  assert.is(forBob.status, 403, forBob.text);
});

flows('a key with expires_at works until then and is 401 after; a past expiry is refused', async (ctx) => {
  const session = await sessionOf(ctx, ALICE);
  const past = await call(ctx.server, 'POST', '/v1/keys', {
    body: { name: 'late', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' },
    key: session,
  });
  assert.is(past.status, 400);
  assert.equal(withoutValues(past.json), {
    code: 'invalid_argument',
    message: 'expires_at: must be in the future',
    details: [{ type: 'tms.v1.FieldViolation', debug: { field: 'expires_at', description: 'must be in the future' } }],
  });

  const expiresAt = new Date(Date.now() + 10_000).toISOString();
  const key = await keyOf(ctx, session, { name: 'short', scopes: ['read'], expires_at: expiresAt });
  assert.is(key.expires_at, expiresAt);
  assert.is((await call(ctx.server, 'GET', '/v1/timelines', { key: key.key })).status, 200);
  await sleep(Date.parse(expiresAt) - Date.now() + 50);
  const expired = await call(ctx.server, 'GET', '/v1/timelines', { key: key.key });
  assert.is(expired.status, 401);
  assert.equal(expired.json, INVALID_CREDENTIALS);
  const rpc = await grpcCall(ctx.server.port, 'tms.v1.TimelineService.ListTimelines', {}, key.key);
  assert.is(rpc.codeName, 'unauthenticated');
  const listed = await call(ctx.server, 'GET', '/v1/keys', { key: session });
  assert.is(listed.json.keys.find((k: { key_id: string }) => k.key_id === key.key_id)?.expires_at, expiresAt, 'still listed, with its expiry');
});

flows('revoking a key takes effect on the very next request, on every face', async (ctx) => {
  const session = await sessionOf(ctx, ALICE);
  const rest = await keyOf(ctx, session, { name: 'doomed by REST', scopes: ['read', 'write'] });
  assert.is((await call(ctx.server, 'GET', '/v1/timelines', { key: rest.key })).status, 200);
  const revoked = await call(ctx.server, 'DELETE', `/v1/keys/${rest.key_id}`, { key: session });
  assert.is(revoked.status, 200, revoked.text);
  assert.equal(revoked.json, { status: 'Key revoked', key_id: rest.key_id });
  assert.equal((await call(ctx.server, 'GET', '/v1/timelines', { key: rest.key })).json, INVALID_CREDENTIALS);
  assert.is((await grpcCall(ctx.server.port, 'tms.v1.TimelineService.ListTimelines', {}, rest.key)).codeName, 'unauthenticated');

  const grpc = await keyOf(ctx, session, { name: 'doomed by gRPC', scopes: ['read'] });
  const rpc = await grpcCall(ctx.server.port, 'tms.v1.AccountService.RevokeKey', { key_id: grpc.key_id }, session);
  assert.is(rpc.codeName, 'ok', rpc.message);
  assert.is((await call(ctx.server, 'GET', '/v1/timelines', { key: grpc.key })).status, 401);

  // Another account cannot revoke it, nor learn that it exists.
  const mine = await keyOf(ctx, session, { name: 'kept', scopes: ['read'] });
  const bob = await sessionOf(ctx, BOB);
  const theirs = await call(ctx.server, 'DELETE', `/v1/keys/${mine.key_id}`, { key: bob });
  const nothing = await call(ctx.server, 'DELETE', '/v1/keys/key_0000000000000000', { key: bob });
  assert.is(theirs.status, 404);
  assert.equal(theirs.json, { code: 'not_found', message: `key "${mine.key_id}" not found` });
  assert.equal(nothing.json, { code: 'not_found', message: 'key "key_0000000000000000" not found' });
  assert.is((await call(ctx.server, 'GET', '/v1/timelines', { key: mine.key })).status, 200, 'still works');
});

// ------------------------------------------------------------------ accounts (admin)

flows('accounts: create, list and delete are admin-only; a deleted account stops authenticating at once', async (ctx) => {
  const alice = await sessionOf(ctx, ALICE);
  const body = { username: 'carol', password: 'carol-password-0005', scopes: ['read', 'write'] };
  ctx.secrets.push(body.password);
  for (const [method, path, payload] of [
    ['POST', '/v1/accounts', body],
    ['GET', '/v1/accounts', undefined],
    ['DELETE', '/v1/accounts/bob', undefined],
  ] as const) {
    const refused = await call(ctx.server, method, path, payload === undefined ? { key: alice } : { key: alice, body: payload });
    assert.is(refused.status, 403, `${method} ${path}: ${refused.text}`);
    assert.is(refused.json.code, 'permission_denied');
  }

  const created = await call(ctx.server, 'POST', '/v1/accounts', { body, key: ADMIN_KEY });
  assert.is(created.status, 200, created.text);
  assert.is(created.json.status, 'Account created');
  assert.equal([created.json.account.username, created.json.account.scopes], ['carol', ['read', 'write']]);
  const duplicate = await call(ctx.server, 'POST', '/v1/accounts', { body: { ...body, username: 'CAROL' }, key: ADMIN_KEY });
  assert.is(duplicate.status, 409);
  assert.equal(duplicate.json, { code: 'already_exists', message: 'account "carol" already exists' });

  // Without a password, one is generated and shown once.
  const generated = await grpcCall(ctx.server.port, 'tms.v1.AccountService.CreateAccount', { username: 'dave', scopes: ['read'] });
  assert.is(generated.codeName, 'ok', generated.message);
  const password = /shown once: (\S+)$/.exec(generated.json.status)?.[1] ?? '';
  ctx.secrets.push(password);
  assert.ok(password.length >= 16, generated.json.status);
  const dave = await login(ctx.server, 'dave', password);
  ctx.secrets.push(dave.token);

  const listed = await call(ctx.server, 'GET', '/v1/accounts', { key: ADMIN_KEY });
  assert.is(listed.status, 200);
  assert.equal(
    listed.json.accounts.map((a: { username: string }) => a.username),
    ['admin', 'alice', 'bob', 'carol', 'dave', 'locked', 'reader'],
  );
  assert.equal(Object.keys(listed.json.accounts[0]).sort(), ['created_at', 'scopes', 'username']);
  assert.not.ok(listed.text.includes('scrypt'), 'no password hash in the listing');

  const carolSession = await login(ctx.server, 'carol', body.password);
  ctx.secrets.push(carolSession.token);
  const carolKey = await keyOf(ctx, carolSession.token, { name: 'carol ci', scopes: ['read', 'write'] });
  const timeline = await call(ctx.server, 'POST', '/v1/create-timeline', { body: { description: 'carol was here' }, key: carolKey.key });
  assert.is(timeline.status, 200);

  const deleted = await call(ctx.server, 'DELETE', '/v1/accounts/Carol', { key: ADMIN_KEY });
  assert.is(deleted.status, 200, deleted.text);
  assert.equal(deleted.json, { status: 'Account deleted', username: 'carol' }, 'the name as stored');
  for (const bearer of [carolKey.key, carolSession.token]) {
    assert.equal((await call(ctx.server, 'GET', '/v1/timelines', { key: bearer })).json, INVALID_CREDENTIALS);
  }
  const relogin = await call(ctx.server, 'POST', '/v1/login', { body: { username: 'carol', password: body.password }, key: null });
  assert.is(relogin.status, 401);
  const gone = await call(ctx.server, 'DELETE', '/v1/accounts/carol', { key: ADMIN_KEY });
  assert.is(gone.status, 404);
  assert.equal(gone.json, { code: 'not_found', message: 'account "carol" not found' });
  const self = await call(ctx.server, 'DELETE', '/v1/accounts/admin', { key: ADMIN_KEY });
  assert.is(self.status, 400);
  assert.equal(self.json, { code: 'failed_precondition', message: 'an account cannot remove itself' });
  // What carol made is still there, still hers: an admin sees it.
  const kept = await call(ctx.server, 'GET', `/v1/timeline/${timeline.json.timeline_id}`, { key: ADMIN_KEY });
  assert.is(kept.json.timeline.owner, 'carol');
});

flows('records say who created them: a timeline names its owner account, whichever credential made it', async (ctx) => {
  const session = await sessionOf(ctx, BOB);
  const key = await keyOf(ctx, session, { name: 'bob ci', scopes: ['read', 'write'] });
  const byKey = await call(ctx.server, 'POST', '/v1/create-timeline', { body: { description: 'by key' }, key: key.key });
  const bySession = await grpcCall(ctx.server.port, 'tms.v1.TimelineService.CreateParallelTimeline', {
    base_timeline_id: byKey.json.timeline_id,
    description: 'by session',
    variation: 'v',
  }, session);
  const byAdmin = await call(ctx.server, 'POST', '/v1/timelines', { body: { description: 'by admin' }, key: ADMIN_KEY });
  assert.is(byKey.json.timeline.owner, 'bob');
  assert.is(bySession.json.timeline.owner, 'bob');
  assert.is(byAdmin.json.timeline.owner, 'admin');
  const seen = await call(ctx.server, 'GET', `/v1/timeline/${bySession.json.timeline_id}`, { key: ADMIN_KEY });
  assert.is(seen.json.timeline.owner, 'bob');
  const primary = await call(ctx.server, 'GET', '/v1/timeline/primary', { key: key.key });
  assert.is(primary.json.timeline.owner, '', 'primary belongs to no account');
});

// ------------------------------------------------------------------ secrets at rest

flows('no password, key or token used above is anywhere in the data directory', async (ctx) => {
  const bootstrap = ctx.server.app.bootstrap;
  if (bootstrap) ctx.secrets.push(bootstrap.password, bootstrap.key);
  const secrets = [...new Set(ctx.secrets.filter((s) => s.length > 0))];
  assert.ok(secrets.length >= 25, `${secrets.length} secrets`);
  // Write everything out and let go of the folder (last-use times are flushed at close).
  await ctx.server.app.close();
  ctx.closed = true;

  const tails = secrets.map((s) => s.slice(-20));
  assert.equal(await secretsInFiles(ctx.server.dataDir, [...secrets, ...tails]), []);
  // The scan reads the stored bytes: a key name written above is found.
  assert.equal(await secretsInFiles(ctx.server.dataDir, ['doomed by gRPC']), ['doomed by gRPC']);

  // Logically too (LevelDB compresses its tables): no stored key or value contains any of them.
  const db = new Level<Uint8Array, Uint8Array>(ctx.server.dataDir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const found = new Set<string>();
  try {
    for await (const [key, value] of db.iterator()) {
      const text = Buffer.from(key).toString('latin1') + '\n' + Buffer.from(value).toString('latin1');
      for (const secret of [...secrets, ...tails]) if (text.includes(secret)) found.add(secret);
    }
  } finally {
    await db.close();
  }
  assert.equal([...found], []);
});

flows.run();

// Its own server: the suite above scans its data folder's bytes, which more data would change.
const names = suite<{ server: TestServer }>('account names of deleted accounts');
names.before(async (ctx) => {
  ctx.server = await startSeededServer([]);
});
names.after(async (ctx) => {
  await ctx.server.stop();
});

names('a deleted account\'s name is not given again while its timelines remain: the new account would inherit them', async (ctx) => {
  const erin = { username: 'erin', password: 'erin-password-0005', scopes: ['read', 'write'] };
  const created = await call(ctx.server, 'POST', '/v1/accounts', { body: erin });
  assert.is(created.status, 200, created.text);
  const { token } = await login(ctx.server, erin.username, erin.password);
  const made = await call(ctx.server, 'POST', '/v1/create-timeline', { key: token, body: { base_timeline_id: 'primary', description: 'erin secret' } });
  assert.is(made.status, 200, made.text);
  assert.is((await call(ctx.server, 'DELETE', '/v1/accounts/erin')).status, 200);

  const again = await call(ctx.server, 'POST', '/v1/accounts', { body: { ...erin, password: 'erin-password-0006' } });
  assert.is(again.status, 400, again.text);
  assert.is(again.json.code, 'failed_precondition');
  assert.match(again.json.message, /^username: "erin" still owns 1 timeline of a deleted account of that name/);
  assert.is(again.json.details?.[0]?.debug?.field, 'username');
  const overGrpc = await grpcCall(ctx.server.port, 'tms.v1.AccountService.CreateAccount', { username: 'erin', password: 'erin-password-0006', scopes: ['read'] });
  assert.is(overGrpc.codeName, 'failed_precondition');

  // An admin sees the timeline, deletes it, and the name is free.
  assert.is((await call(ctx.server, 'DELETE', `/v1/timeline/${made.json.timeline_id as string}`)).status, 200);
  const fresh = await call(ctx.server, 'POST', '/v1/accounts', { body: { ...erin, password: 'erin-password-0006' } });
  assert.is(fresh.status, 200, fresh.text);
  const { token: newToken } = await login(ctx.server, erin.username, 'erin-password-0006');
  const listed = await call(ctx.server, 'GET', '/v1/timelines', { key: newToken });
  assert.equal(listed.json.timelines.map((t: { timeline_id: string }) => t.timeline_id), ['primary'], 'the new erin starts empty');
});

names.run();

// ------------------------------------------------------------------ short session and lock settings

// Room for a login, a REST call and a new gRPC connection on a loaded machine before the session ends.
const SESSION_TTL_MS = 10_000;
const LOGIN_LOCK_MS = 2000;

const short = suite<{ server: TestServer }>(`sessionTtlMs ${SESSION_TTL_MS} and loginLockMs ${LOGIN_LOCK_MS}`);
// A fresh server for each test: lockouts are per client address, and every request here comes from 127.0.0.1.
short.before.each(async (ctx) => {
  ctx.server = await startSeededServer([ALICE, BOB, READER, LOCKED], { sessionTtlMs: SESSION_TTL_MS, loginLockMs: LOGIN_LOCK_MS });
});
short.after.each(async (ctx) => {
  await ctx.server.stop();
});

const loginCall = (server: TestServer, username: string, password: string) =>
  call(server, 'POST', '/v1/login', { body: { username, password }, key: null });

short('a login token works until sessionTtlMs has passed, then gets the 401 of any bad credential', async ({ server }) => {
  const session = await login(server, 'alice', ALICE.password);
  const ttl = Date.parse(session.expires_at) - Date.now();
  assert.ok(ttl > 0 && ttl <= SESSION_TTL_MS, `expires_at ${session.expires_at} is within ${SESSION_TTL_MS} ms`);
  assert.is((await call(server, 'GET', '/v1/timelines', { key: session.token })).status, 200);
  assert.is((await grpcCall(server.port, 'tms.v1.TimelineService.ListTimelines', {}, session.token)).codeName, 'ok');

  await sleep(Date.parse(session.expires_at) - Date.now() + 50);
  const expired = await call(server, 'GET', '/v1/timelines', { key: session.token });
  const neverIssued = await call(server, 'GET', '/v1/timelines', { key: UNISSUED_KEY });
  assert.is(expired.status, 401);
  assert.equal(expired.json, INVALID_CREDENTIALS);
  assert.equal(expired.json, neverIssued.json);
  const rpc = await grpcCall(server.port, 'tms.v1.TimelineService.ListTimelines', {}, session.token);
  assert.equal([rpc.codeName, rpc.message], [INVALID_CREDENTIALS.code, INVALID_CREDENTIALS.message]);
  const out = await call(server, 'POST', '/v1/logout', { key: session.token });
  assert.is(out.status, 401);
  assert.equal(out.json, INVALID_CREDENTIALS);
});

short('a lockout ends after loginLockMs: then the right password logs in again', async ({ server }) => {
  for (let attempt = 1; attempt <= 10; attempt++) {
    assert.is((await loginCall(server, 'locked', `guess-${attempt}`)).status, 401, `attempt ${attempt}`);
  }
  const locked = await loginCall(server, 'locked', LOCKED.password);
  assert.is(locked.status, 429, locked.text);
  const retryAfter = Number(locked.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= Math.ceil(LOGIN_LOCK_MS / 1000), `Retry-After ${retryAfter}`);

  // Timers may fire a moment early; the lock's end is what is tested, not the exact instant.
  await sleep(retryAfter * 1000 + 250);
  const again = await loginCall(server, 'locked', LOCKED.password);
  assert.is(again.status, 200, again.text);
  assert.match(again.json.token, SESSION_TOKEN);
});

short("logging into one's own account between guesses does not reset the address: 20 failures lock it", async ({ server }) => {
  // Alice guesses at three other accounts (at most 7 each, under the per-account limit of 10), logging into
  // her own account after every fifth guess.
  const others = [BOB, READER, LOCKED];
  for (let guess = 1; guess <= 20; guess++) {
    const res = await loginCall(server, others[guess % 3]!.username, `guess-${guess}`);
    assert.is(res.status, 401, `guess ${guess}: ${res.text}`);
    if (guess % 5 === 0 && guess < 20) await login(server, 'alice', ALICE.password);
  }
  const alice = await loginCall(server, 'alice', ALICE.password);
  assert.is(alice.status, 429, alice.text);
  assert.is(alice.json.code, 'resource_exhausted');
  const retryAfter = Number(alice.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= Math.ceil(LOGIN_LOCK_MS / 1000), `Retry-After ${retryAfter}`);
  // The address is locked, not the accounts: bob's right password is refused too, from here.
  assert.is((await loginCall(server, 'bob', BOB.password)).status, 429);

  await sleep(retryAfter * 1000 + 250);
  assert.is((await loginCall(server, 'alice', ALICE.password)).status, 200, 'the lock ended');
});

short('without trusted proxies X-Forwarded-For is not believed: guesses under many names still lock the address', async ({ server }) => {
  const others = [BOB, READER, LOCKED];
  for (let guess = 1; guess <= 20; guess++) {
    const res = await call(server, 'POST', '/v1/login', {
      body: { username: others[guess % 3]!.username, password: `guess-${guess}` },
      key: null,
      headers: { 'x-forwarded-for': `203.0.113.${guess}` },
    });
    assert.is(res.status, 401, `guess ${guess}: ${res.text}`);
  }
  const alice = await call(server, 'POST', '/v1/login', { body: { username: 'alice', password: ALICE.password }, key: null, headers: { 'x-forwarded-for': '203.0.113.99' } });
  assert.is(alice.status, 429, alice.text);
});

short.run();

const proxied = suite<{ server: TestServer }>('behind a trusted proxy (trustedProxies 127.0.0.1)');
proxied.before.each(async (ctx) => {
  ctx.server = await startSeededServer([ALICE, BOB, READER, LOCKED], { loginLockMs: LOGIN_LOCK_MS, trustedProxies: '127.0.0.1' });
});
proxied.after.each(async (ctx) => {
  await ctx.server.stop();
});

const loginVia = (server: TestServer, forwardedFor: string, username: string, password: string) =>
  call(server, 'POST', '/v1/login', { body: { username, password }, key: null, headers: { 'x-forwarded-for': forwardedFor } });

proxied('failed logins lock the client the proxy names, not the proxy: other clients behind it still log in', async ({ server }) => {
  const others = [BOB, READER, LOCKED];
  for (let guess = 1; guess <= 20; guess++) {
    const res = await loginVia(server, 'spoofed-by-client, 203.0.113.5', others[guess % 3]!.username, `guess-${guess}`);
    assert.is(res.status, 401, `guess ${guess}: ${res.text}`);
  }
  const guesser = await loginVia(server, '203.0.113.5', 'alice', ALICE.password);
  assert.is(guesser.status, 429, guesser.text);
  assert.is(guesser.json.code, 'resource_exhausted');
  const neighbour = await loginVia(server, '203.0.113.6', 'alice', ALICE.password);
  assert.is(neighbour.status, 200, neighbour.text);
  assert.is((await loginCall(server, 'alice', ALICE.password)).status, 200, 'the proxy itself (no header) is not locked');
});

proxied.run();
