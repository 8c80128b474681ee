// Two nodes' access control on one PostgreSQL database: a login, logout, key or lockout on one node is loaded by
// the other as just the records it touched; an account change, or a log that no longer reaches back, loads all.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AccountStore } from '../../src/accounts/account-store.ts';
import { AccessControl } from '../../src/accounts/access.ts';
import { ApiError } from '../../src/domain/errors.ts';
import type { Storage } from '../../src/store/storage.ts';
import { CHEAP_SCRYPT } from '../support/accounts.ts';
import { TEST_DATABASE_URL, testBackends, type TestPlace } from '../support/backends.ts';
import { withClient } from '../support/postgres.ts';

const run = promisify(execFile);
/** Clean-ups of the test that runs, done after it. */
const after: (() => Promise<void>)[] = [];
test.after.each(async () => {
  for (const cleanUp of after.splice(0)) await cleanUp();
});
const postgresql = testBackends.find((backend) => backend.name === 'postgresql');

/** The store, with a count of its full loads and of its incremental ones. */
function counted(store: AccountStore) {
  const counts = { loadAll: 0, changesSince: 0 };
  const wrapped = Object.create(store) as AccountStore;
  wrapped.loadAll = () => {
    counts.loadAll += 1;
    return store.loadAll();
  };
  wrapped.changesSince = (from, to) => {
    counts.changesSince += 1;
    return store.changesSince!(from, to);
  };
  let failing: 'before' | 'after' | undefined;
  wrapped.putKey = async (record) => {
    const when = failing;
    failing = undefined;
    if (when === 'before') throw new Error('connection lost');
    await store.putKey(record);
    if (when === 'after') throw new Error('connection lost');
  };
  return { store: wrapped, counts, failNextWrite: (when: 'before' | 'after' = 'before') => (failing = when) };
}

interface Nodes {
  place: TestPlace;
  a: AccessControl;
  b: AccessControl;
  /** Node B's loads. */
  counts: { loadAll: number; changesSince: number };
  /** Node B's next key write fails: before it reaches the store, or after the store took it (the answer lost). */
  failNextWrite: (when?: 'before' | 'after') => void;
}

async function withTwoNodes(work: (nodes: Nodes) => Promise<void>): Promise<void> {
  const place = await postgresql!.newPlace();
  const storages: Storage[] = [];
  const access: AccessControl[] = [];
  try {
    storages.push(await place.open(), await place.open());
    const b = counted(storages[1]!.accounts);
    const options = { scrypt: CHEAP_SCRYPT, throttle: { accountLimit: 3 } };
    access.push(await AccessControl.open(storages[0]!.accounts, options), await AccessControl.open(b.store, options));
    await work({ place, a: access[0]!, b: access[1]!, counts: b.counts, failNextWrite: b.failNextWrite });
  } finally {
    for (const node of access) await node.close();
    for (const storage of storages) await storage.close();
    await place.remove();
  }
}

/** The admin, made on A, as each node identifies it (B loads it from the store). */
async function adminOnBoth(a: AccessControl, b: AccessControl) {
  const admin = await a.ensureAdmin();
  assert.ok(admin.created);
  const onA = await a.identify(`Bearer ${admin.key}`, '10.0.0.1');
  const onB = await b.identify(`Bearer ${admin.key}`, '10.0.0.2');
  return { admin, onA, onB };
}

async function refused(promise: Promise<unknown>, code: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, code, (error as ApiError).message);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

if (postgresql && TEST_DATABASE_URL) {
  test('a login, a new key, its revocation, a logout and a lockout on one node: the other loads only those records', async () => {
    await withTwoNodes(async ({ a, b, counts }) => {
      const { admin, onB: principal } = await adminOnBoth(a, b);
      assert.is(principal.account, 'admin', 'a new account: B loads everything');
      assert.is(counts.loadAll, 2, 'at open, and after the account change');

      const login = await a.login('admin', admin.password, '10.0.0.1');
      assert.is((await b.identify(`Bearer ${login.token}`, '10.0.0.2')).account, 'admin');
      const key = await a.createKey(principal, { name: 'ci', scopes: ['read'] });
      assert.equal([...(await b.identify(`Bearer ${key.key}`, '10.0.0.2')).scopes], ['read']);
      await a.revokeKey(principal, key.key_id);
      await refused(Promise.resolve(b.identify(`Bearer ${key.key}`, '10.0.0.2')), 'unauthenticated');
      await a.logout(`Bearer ${login.token}`);
      await refused(Promise.resolve(b.identify(`Bearer ${login.token}`, '10.0.0.2')), 'unauthenticated');
      for (let attempt = 0; attempt < 3; attempt++) await refused(a.login('admin', `wrong ${attempt}`, '10.0.0.1'), 'unauthenticated');
      await refused(b.login('admin', admin.password, '10.0.0.3'), 'resource_exhausted');
      assert.is(counts.loadAll, 2, 'no full load for keys, sessions and lockouts');
      assert.ok(counts.changesSince >= 5, `loaded incrementally ${counts.changesSince} times`);
    });
  });

  test('a key revoked on one node keeps, and lists, the last use another node wrote, which the first never loaded', async () => {
    await withTwoNodes(async ({ place, a, b }) => {
      const { admin, onA, onB } = await adminOnBoth(a, b);
      const key = await a.createKey(onA, { name: 'ci', scopes: ['read'] });
      await b.identify(`Bearer ${admin.key}`, '10.0.0.2');
      await a.identify(`Bearer ${key.key}`, '10.9.9.9');
      await a.flush();
      await b.revokeKey(onB, key.key_id);
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      const { rows } = await withClient(url, (client) => client.query(`SELECT record FROM ${schema}.api_key WHERE key_id = $1`, [key.key_id]));
      assert.is(rows[0].record.revoked, true);
      assert.is(rows[0].record.last_used_from, '10.9.9.9');
      assert.type(rows[0].record.last_used_at, 'string');
      const listed = (await b.listKeys(onB)).find((view) => view.key_id === key.key_id)!;
      assert.is(listed.last_used_from, '10.9.9.9', 'B lists the last use A wrote');
      assert.is(listed.last_used_at, rows[0].record.last_used_at);
    });
  });

  test('a change without a note among noted ones (a node of the version before) makes the other node load everything', async () => {
    await withTwoNodes(async ({ place, a, b, counts }) => {
      const { admin, onB: principal } = await adminOnBoth(a, b);
      const loads = counts.loadAll;
      const key = await a.createKey(principal, { name: 'noted', scopes: ['read'] });
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      await withClient(url, (client) => client.query(`UPDATE ${schema}.tms_account_clock SET stamp = stamp + 1`));
      const login = await a.login('admin', admin.password, '10.0.0.1');
      assert.is((await b.identify(`Bearer ${key.key}`, '10.0.0.2')).account, 'admin');
      assert.is((await b.identify(`Bearer ${login.token}`, '10.0.0.2')).account, 'admin');
      assert.is(counts.loadAll, loads + 1, 'one full load for the range with a stamp unnoted');
      await a.revokeKey(principal, key.key_id);
      await refused(Promise.resolve(b.identify(`Bearer ${key.key}`, '10.0.0.2')), 'unauthenticated');
      assert.is(counts.loadAll, loads + 1, 'and incremental again after it');
    });
  });

  test('a node that the change log no longer reaches back to loads everything, and misses nothing', async () => {
    await withTwoNodes(async ({ place, a, b, counts }) => {
      const { admin, onB: principal } = await adminOnBoth(a, b);
      const kept = await a.createKey(principal, { name: 'kept', scopes: ['read'] });
      const revoked = await a.createKey(principal, { name: 'revoked', scopes: ['read'] });
      await b.identify(`Bearer ${revoked.key}`, '10.0.0.2');
      const loads = counts.loadAll;
      await a.revokeKey(principal, revoked.key_id);
      const login = await a.login('admin', admin.password, '10.0.0.1');
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      await withClient(url, (client) => client.query(`DELETE FROM ${schema}.account_change_log`));
      await refused(Promise.resolve(b.identify(`Bearer ${revoked.key}`, '10.0.0.2')), 'unauthenticated');
      assert.is((await b.identify(`Bearer ${login.token}`, '10.0.0.2')).account, 'admin');
      assert.is((await b.identify(`Bearer ${kept.key}`, '10.0.0.2')).account, 'admin');
      assert.is(counts.loadAll, loads + 1, 'one full load');
    });
  });

  test('a database made again under a running node, with more changes than the node saw: the node loads everything', async () => {
    await withTwoNodes(async ({ place, a, b }) => {
      const before = await a.ensureAdmin();
      assert.ok(before.created);
      const oldLogin = await a.login('admin', before.password, '10.0.0.1');
      assert.is((await b.identify(`Bearer ${oldLogin.token}`, '10.0.0.2')).account, 'admin');
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      await withClient(url, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
      const again = await place.open();
      const c = await AccessControl.open(again.accounts, { scrypt: CHEAP_SCRYPT });
      try {
        const after = await c.ensureAdmin();
        assert.ok(after.created);
        // Session notes only, and the count past the one node B loaded at.
        for (let login = 0; login < 3; login++) await c.login('admin', after.password, '10.0.0.3');
        await refused(Promise.resolve(b.identify(`Bearer ${before.key}`, '10.0.0.2')), 'unauthenticated');
        await refused(Promise.resolve(b.identify(`Bearer ${oldLogin.token}`, '10.0.0.2')), 'unauthenticated');
        assert.is((await b.identify(`Bearer ${after.key}`, '10.0.0.2')).account, 'admin');
      } finally {
        await c.close();
        await again.close();
      }
    });
  });

  test('account tables restored from a dump under running nodes, the count back at one they saw: both load everything', async () => {
    await withTwoNodes(async ({ place, a, b }) => {
      const { admin, onA } = await adminOnBoth(a, b);
      const old = await a.createKey(onA, { name: 'in the dump', scopes: ['read'] });
      assert.is((await b.identify(`Bearer ${old.key}`, '10.0.0.2')).account, 'admin');
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      const dumpDir = await mkdtemp(join(tmpdir(), 'tms-dump-'));
      after.push(() => rm(dumpDir, { recursive: true, force: true }));
      const dump = join(dumpDir, 'accounts.dump');
      const tables = ['account', 'api_key', 'login_session', 'tms_account_clock', 'account_change_log'].flatMap((table) => ['--table', `${schema}.${table}`]);
      await run('pg_dump', ['--format=custom', `--file=${dump}`, ...tables, `--dbname=${url}`]);
      const lost = await a.createKey(onA, { name: 'after the dump', scopes: ['read'] });
      assert.is((await b.identify(`Bearer ${lost.key}`, '10.0.0.2')).account, 'admin');
      await run('pg_restore', ['--clean', '--if-exists', `--dbname=${url}`, dump]);
      // Back by one, then forward by one: the count both nodes loaded at, over other changes.
      await a.revokeKey(onA, old.key_id);
      for (const [node, client] of [
        [a, '10.0.0.1'],
        [b, '10.0.0.2'],
      ] as const) {
        await refused(Promise.resolve(node.identify(`Bearer ${lost.key}`, client)), 'unauthenticated');
        await refused(Promise.resolve(node.identify(`Bearer ${old.key}`, client)), 'unauthenticated');
        assert.is((await node.identify(`Bearer ${admin.key}`, client)).account, 'admin');
      }
    });
  });

  // Before: the store never took it, and the key still works everywhere. After: the store took it, the answer was lost.
  for (const when of ['before', 'after'] as const) {
    test(`a revocation that failed ${when} the store took it: its node loads everything, and agrees with the store and the other node`, async () => {
      await withTwoNodes(async ({ a, b, counts, failNextWrite }) => {
        const { onB } = await adminOnBoth(a, b);
        const key = await a.createKey(onB, { name: 'ci', scopes: ['read'] });
        assert.is((await b.identify(`Bearer ${key.key}`, '10.0.0.2')).account, 'admin');
        const loads = counts.loadAll;
        failNextWrite(when);
        try {
          await b.revokeKey(onB, key.key_id);
          assert.unreachable('the revocation failed');
        } catch (error) {
          assert.match(String(error), /connection lost/);
        }
        const usable = async (node: AccessControl, client: string): Promise<boolean> => {
          try {
            return (await node.identify(`Bearer ${key.key}`, client)).account === 'admin';
          } catch (error) {
            assert.is((error as ApiError).code, 'unauthenticated');
            return false;
          }
        };
        assert.is(await usable(a, '10.0.0.1'), when === 'before', 'the store holds the key revoked only if it took the write');
        assert.is(await usable(b, '10.0.0.2'), when === 'before', 'and so does B');
        assert.is(counts.loadAll, loads + 1, 'one full load');
      });
    });
  }

  test("an account removed on one node: its keys and sessions are refused on the other", async () => {
    await withTwoNodes(async ({ a, b }) => {
      const { onA } = await adminOnBoth(a, b);
      const created = await a.createAccount(onA, { username: 'bob', scopes: ['read'] });
      const key = await a.createKey(onA, { account: 'bob', name: 'bob', scopes: ['read'] });
      const login = await b.login('bob', created.password, '10.0.0.2');
      assert.is((await b.identify(`Bearer ${key.key}`, '10.0.0.2')).account, 'bob');
      assert.is((await b.identify(`Bearer ${login.token}`, '10.0.0.2')).account, 'bob');
      await a.deleteAccount(onA, 'bob');
      await refused(Promise.resolve(b.identify(`Bearer ${key.key}`, '10.0.0.2')), 'unauthenticated');
      await refused(Promise.resolve(b.identify(`Bearer ${login.token}`, '10.0.0.2')), 'unauthenticated');
      await refused(b.login('bob', created.password, '10.0.0.2'), 'unauthenticated');
    });
  });

  test('a key or login made on a node that has not yet seen its account removed is refused, and nothing of it stays', async () => {
    await withTwoNodes(async ({ place, a, b }) => {
      const { admin, onA, onB } = await adminOnBoth(a, b);
      const created = await a.createAccount(onA, { username: 'bob', scopes: ['read'] });
      await b.identify(`Bearer ${admin.key}`, '10.0.0.2');
      // B writes before its next check: as if A removed the account between B's check and B's write.
      await a.deleteAccount(onA, 'bob');
      await refused(b.createKey(onB, { account: 'bob', name: 'late', scopes: ['read'] }), 'not_found');
      // The removal lands while B checks the password, or before B's check: refused either way.
      await a.createAccount(onA, { username: 'bob', password: created.password!, scopes: ['read'] });
      await b.identify(`Bearer ${admin.key}`, '10.0.0.2');
      const login = b.login('bob', created.password, '10.0.0.2');
      await a.deleteAccount(onA, 'bob');
      await refused(login, 'unauthenticated');
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      const { rows } = await withClient(url, (client) =>
        client.query(
          `SELECT (SELECT count(*)::int FROM ${schema}.api_key WHERE account = 'bob') AS keys, (SELECT count(*)::int FROM ${schema}.login_session WHERE account = 'bob') AS sessions`,
        ),
      );
      assert.equal(rows[0], { keys: 0, sessions: 0 });
      await a.createAccount(onA, { username: 'bob', scopes: ['read'] });
      await b.identify(`Bearer ${admin.key}`, '10.0.0.2');
      assert.equal(await b.listKeys(onB, { account: 'bob' }), [], 'an account made again under the name has no keys of the old one');
    });
  });

  test('a stamp gone back (a store restored into the database): the other node loads everything', async () => {
    await withTwoNodes(async ({ place, a, b, counts }) => {
      const { admin, onB: principal } = await adminOnBoth(a, b);
      const key = await a.createKey(principal, { name: 'gone', scopes: ['read'] });
      assert.is((await b.identify(`Bearer ${key.key}`, '10.0.0.2')).account, 'admin');
      const loads = counts.loadAll;
      if (place.spec.backend !== 'postgresql') throw new Error('a PostgreSQL place');
      const { url, schema } = place.spec;
      // As the store stood before the key was made.
      await withClient(url, async (client) => {
        await client.query(`DELETE FROM ${schema}.api_key WHERE key_id = $1`, [key.key_id]);
        await client.query(`UPDATE ${schema}.tms_account_clock SET stamp = stamp - 1`);
      });
      await refused(Promise.resolve(b.identify(`Bearer ${key.key}`, '10.0.0.2')), 'unauthenticated');
      assert.is((await b.identify(`Bearer ${admin.key}`, '10.0.0.2')).account, 'admin');
      assert.is(counts.loadAll, loads + 1, 'one full load');
    });
  });
}

test.run();
