// The account and saved-request store contracts, run unchanged against every backend (test/support/backends.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/domain/errors.ts';
import type { AccountRecord, KeyRecord, SessionRecord } from '../../src/accounts/records.ts';
import type { SavedRequestRecord } from '../../src/saved-requests/records.ts';
import { AccessControl } from '../../src/accounts/access.ts';
import { CHEAP_SCRYPT } from '../support/accounts.ts';
import { testBackends, type TestPlace } from '../support/backends.ts';
import type { Storage } from '../../src/store/storage.ts';

const account = (username: string): AccountRecord => ({
  username,
  password_hash: `$scrypt$ln=10,r=8,p=1$c2FsdA$${username}`,
  scopes: ['read', 'write'],
  created_at: '2026-11-24T10:00:00.000Z',
  created_by: 'admin',
});
const key = (keyId: string, owner: string, extra: Partial<KeyRecord> = {}): KeyRecord => ({
  key_id: keyId,
  name: `key ${keyId}`,
  account: owner,
  scopes: ['read'],
  created_at: '2026-11-24T10:00:00.000Z',
  created_by: owner,
  expires_at: null,
  last_used_at: null,
  last_used_from: null,
  revoked: false,
  revoked_at: null,
  token_sha256: 'ab'.repeat(32),
  ...extra,
});
const session = (sessionId: string, owner: string): SessionRecord => ({
  session_id: sessionId,
  account: owner,
  created_at: '2026-11-24T10:00:00.000Z',
  expires_at: '2026-11-24T11:00:00.000Z',
  client: '127.0.0.1',
  token_sha256: 'cd'.repeat(32),
});
const saved = (owner: string, id: string, extra: Partial<SavedRequestRecord> = {}): SavedRequestRecord => ({
  id,
  name: `request ${id}`,
  method: 'POST',
  path: '/v1/search-events',
  headers: { 'content-type': 'application/json' },
  body: '{"location":"Paris"}',
  created_at: '2026-11-24T10:00:00.000Z',
  owner,
  share_token: '',
  ...extra,
});
const byId = <T>(records: T[], id: (record: T) => string) => [...records].sort((a, b) => id(a).localeCompare(id(b)));

for (const backend of testBackends) {
  const records = suite<{ place: TestPlace; stores: Storage }>(`record stores on ${backend.name}`);
  records.before.each(async (context) => {
    context.place = await backend.newPlace();
    context.stores = await context.place.open();
  });
  records.after.each(async (context) => {
    await context.stores.close();
    await context.place.remove();
  });
  const reopen = async (context: { place: TestPlace; stores: Storage }) => {
    await context.stores.close();
    context.stores = await context.place.open();
  };

  records('accounts: a new store holds nothing; what is written is there, exactly, after a reopen', async (context) => {
    assert.equal(await context.stores.accounts.loadAll(), { accounts: [], keys: [], sessions: [] });
    await context.stores.accounts.putAccount(account('ada'));
    await context.stores.accounts.putKey(key('k1', 'ada'));
    await context.stores.accounts.putSession(session('s1', 'ada'));
    await context.stores.accounts.putAccount({ ...account('ada'), scopes: ['read'] });
    await reopen(context);
    assert.equal(await context.stores.accounts.loadAll(), {
      accounts: [{ ...account('ada'), scopes: ['read'] }],
      keys: [key('k1', 'ada')],
      sessions: [session('s1', 'ada')],
    });
  });

  records('accounts: removing an account removes the keys and sessions named with it, and nothing else', async (context) => {
    const { accounts } = context.stores;
    assert.is(await accounts.addAccountWithKey(account('ada'), key('k1', 'ada')), true);
    await accounts.putKey(key('k2', 'ada'));
    await accounts.putSession(session('s1', 'ada'));
    assert.is(await accounts.addAccountWithKey(account('bob'), key('k3', 'bob')), true);
    assert.is(await accounts.addAccountWithKey(account('bob'), key('k9', 'bob')), false, 'an existing account is left alone');
    await accounts.putSession(session('s2', 'bob'));
    await accounts.removeAccount('ada', ['k1', 'k2'], ['s1']);
    const loaded = await accounts.loadAll();
    assert.equal(loaded.accounts, [account('bob')]);
    assert.equal(loaded.keys, [key('k3', 'bob')]);
    assert.equal(loaded.sessions, [session('s2', 'bob')]);
  });

  records('accounts: a key or session of an account that does not exist is refused as not found, and nothing is written', async (context) => {
    const { accounts } = context.stores;
    await accounts.putAccount(account('ada'));
    for (const write of [() => accounts.putKey(key('k1', 'bob')), () => accounts.putSession(session('s1', 'bob'))]) {
      try {
        await write();
        assert.unreachable('written without its account');
      } catch (error) {
        assert.instance(error, ApiError);
        assert.is((error as ApiError).code, 'not_found');
        assert.is((error as ApiError).message, 'account "bob" not found');
      }
    }
    await accounts.removeAccount('ada', [], []);
    assert.equal(await accounts.loadAll(), { accounts: [], keys: [], sessions: [] });
  });

  records('accounts: bookkeeping writes many keys at once and deletes sessions one or many at a time', async (context) => {
    const { accounts } = context.stores;
    await accounts.putKeysLazily([]);
    await accounts.putAccount(account('ada'));
    await accounts.putKey(key('k1', 'ada'));
    await accounts.putKey(key('k2', 'ada'));
    const used = key('k1', 'ada', { last_used_at: '2026-11-24T10:30:00.000Z', last_used_from: '10.0.0.7' });
    // Only last use is written, of keys that exist: what changed elsewhere meanwhile (a name here) stays.
    await accounts.putKeysLazily([{ ...used, name: 'renamed in memory only' }, key('gone', 'ada', { last_used_at: '2026-11-24T10:31:00.000Z' })]);
    for (const id of ['s1', 's2', 's3', 's4']) await accounts.putSession(session(id, 'ada'));
    await accounts.deleteSession('s1');
    await accounts.deleteSessionsLazily(['s2', 's3', 'never-was']);
    await accounts.deleteSessionsLazily([]);
    await reopen(context);
    const reloaded = await context.stores.accounts.loadAll();
    assert.equal(byId(reloaded.keys, (k) => k.key_id), [used, key('k2', 'ada')]);
    assert.equal(reloaded.sessions, [session('s4', 'ada')]);
  });

  records('accounts: access control over this backend: a login session made before a restart still works after it', async (context) => {
    const first = await AccessControl.open(context.stores.accounts, { scrypt: CHEAP_SCRYPT });
    const admin = await first.ensureAdmin();
    assert.ok(admin.created);
    const login = await first.login('admin', admin.password, '127.0.0.1');
    await first.close();
    await reopen(context);
    const second = await AccessControl.open(context.stores.accounts, { scrypt: CHEAP_SCRYPT });
    try {
      assert.is(second.authenticate(`Bearer ${login.token}`, '127.0.0.1').account, 'admin');
      assert.is(second.authenticate(`Bearer ${admin.key}`, '127.0.0.1').account, 'admin');
      assert.is((await second.ensureAdmin()).created, false, 'the admin is not made twice');
    } finally {
      await second.close();
    }
  });

  records('saved requests: kept per owner; another owner never reads one by id', async (context) => {
    const { savedRequests } = context.stores;
    await savedRequests.put(saved('ada', 'req_1'));
    assert.equal(await savedRequests.get('ada', 'req_1'), saved('ada', 'req_1'));
    assert.is(await savedRequests.get('bob', 'req_1'), undefined);
    assert.is(await savedRequests.get('ada', 'req_2'), undefined);
    await savedRequests.put(saved('ada', 'req_1', { name: 'renamed' }));
    await reopen(context);
    assert.is((await context.stores.savedRequests.get('ada', 'req_1'))?.name, 'renamed');
  });

  records('saved requests: a share token finds its request until it is replaced, cleared or the request deleted', async (context) => {
    const { savedRequests } = context.stores;
    await savedRequests.put(saved('ada', 'req_1', { share_token: 'shr_one' }));
    assert.is((await savedRequests.findByShareToken('shr_one'))?.id, 'req_1');
    await savedRequests.put(saved('ada', 'req_1', { share_token: 'shr_two' }), 'shr_one');
    assert.is(await savedRequests.findByShareToken('shr_one'), undefined, 'the old link is dead');
    assert.is((await savedRequests.findByShareToken('shr_two'))?.id, 'req_1');
    await savedRequests.put(saved('ada', 'req_1'), 'shr_two');
    assert.is(await savedRequests.findByShareToken('shr_two'), undefined, 'unshared');
    await savedRequests.put(saved('ada', 'req_2', { share_token: 'shr_three' }));
    await savedRequests.delete(saved('ada', 'req_2', { share_token: 'shr_three' }));
    assert.is(await savedRequests.findByShareToken('shr_three'), undefined, 'deleted');
    assert.is(await savedRequests.findByShareToken(''), undefined);
  });

  records('saved requests: listed newest first in pages, counted, deleted; owners do not mix', async (context) => {
    const { savedRequests } = context.stores;
    const ids = ['req_001', 'req_002', 'req_003', 'req_004', 'req_005'];
    for (const id of ids) await savedRequests.put(saved('ada', id));
    await savedRequests.put(saved('adam', 'req_009'));
    await savedRequests.put(saved('ad', 'req_000'));
    const first = await savedRequests.list('ada', { limit: 2 });
    assert.equal(first.map((r) => r.id), ['req_005', 'req_004']);
    const second = await savedRequests.list('ada', { after: 'req_004', limit: 2 });
    assert.equal(second.map((r) => r.id), ['req_003', 'req_002']);
    const last = await savedRequests.list('ada', { after: 'req_002', limit: 2 });
    assert.equal(last.map((r) => r.id), ['req_001']);
    assert.is(await savedRequests.count('ada'), 5);
    assert.is(await savedRequests.count('nobody'), 0);
    await savedRequests.delete(saved('ada', 'req_003'));
    assert.is(await savedRequests.count('ada'), 4);
    assert.equal((await savedRequests.list('ada', { limit: 10 })).map((r) => r.id), ['req_005', 'req_004', 'req_002', 'req_001']);
  });

  records.run();
}
