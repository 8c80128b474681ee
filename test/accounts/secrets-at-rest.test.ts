import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Level } from 'level';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { hashToken, sameHash } from '../../src/accounts/tokens.ts';
import { makeAccount, openHarness, secretsInFiles } from './support.ts';

test('no password, key or session token is stored: the data directory holds none of them', async () => {
  const h = await openHarness();
  const secrets: string[] = [];
  try {
    const bootstrap = await h.access.ensureAdmin();
    if (!bootstrap.created) throw new Error('expected a bootstrap admin');
    secrets.push(bootstrap.password, bootstrap.key);
    const generated = await h.access.createAccount(OPERATOR, { username: 'gen', scopes: ['read'] });
    secrets.push(generated.password!);
    const bob = await makeAccount(h.access, 'bob', ['read', 'write'], 'bobs-very-own-password');
    secrets.push(bob.password, bob.token);
    const live = await h.access.createKey(bob.principal, { name: 'Zq-control-Ω7', scopes: ['read'] });
    const revoked = await h.access.createKey(bob.principal, { name: 'revoked', scopes: ['write'] });
    await h.access.revokeKey(bob.principal, revoked.key_id);
    const loggedOut = await h.access.login('admin', bootstrap.password, 'x');
    await h.access.logout(loggedOut.token);
    secrets.push(live.key, revoked.key, loggedOut.token);
    h.access.authenticate(`Bearer ${live.key}`, 'x');
    await h.reopen({});
    secrets.push('env-admin-key-secret-0042');
    await h.access.ensureAdmin({ adminKey: 'env-admin-key-secret-0042' });
    // A wrong guess at login is not stored either.
    await h.access.login('bob', 'a-wrong-guess-at-bobs-password', 'x').catch(() => undefined);
    secrets.push('a-wrong-guess-at-bobs-password');

    // Logically: no key or value anywhere in the database contains a secret (read as raw LevelDB, every sublevel).
    await h.close();
    const db = new Level<Uint8Array, Uint8Array>(h.dir, { keyEncoding: 'view', valueEncoding: 'view' });
    const everything: string[] = [];
    for await (const [key, value] of db.iterator()) everything.push(Buffer.from(key).toString('latin1'), Buffer.from(value).toString('latin1'));
    await db.close();
    const dump = everything.join('\n');
    for (const secret of secrets) assert.not.ok(dump.includes(secret) || dump.includes(secret.slice(-24)), `found ${secret} in the database`);
    assert.ok(dump.includes(live.key_id), 'the dump does see the stored records');
  } finally {
    await h.close();
  }
  // Physically: after close, in every byte of every file (logs, tables, manifests).
  assert.ok(secrets.length >= 10);
  assert.equal(await secretsInFiles(h.dir, [...secrets, ...secrets.map((s) => s.slice(-24))]), []);
  // A stored string is found: the scan does read the data. LevelDB compresses tables, so fragments seen
  // earlier in a block become copies (hence the logical scan above too, and the control's end left out).
  assert.equal(await secretsInFiles(h.dir, ['Zq-control-Ω']), ['Zq-control-Ω'], 'the scan does read the stored bytes');

  // After a compaction into tables too.
  const db = new Level<Uint8Array, Uint8Array>(h.dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  // classic-level's compactRange is not in the `level` typings.
  await (db as unknown as { compactRange(a: Uint8Array, b: Uint8Array, o: object): Promise<void> }).compactRange(
    new Uint8Array([0]),
    new Uint8Array([255]),
    { keyEncoding: 'view' },
  );
  await db.close();
  assert.equal(await secretsInFiles(h.dir, [...secrets, ...secrets.map((s) => s.slice(-24))]), []);
  await h.remove();
});

test('secrets are compared as SHA-256 digests with timingSafeEqual (by construction)', async () => {
  const source = (file: string) => readFile(new URL(`../../src/accounts/${file}`, import.meta.url), 'utf8');
  const tokens = await source('tokens.ts');
  const access = await source('access.ts');
  const passwords = await source('password-hash.ts');
  // One comparison function for bearer secrets; it is timingSafeEqual over equal-length digests.
  assert.match(tokens, /export function sameHash\(a: Uint8Array, b: Uint8Array\): boolean \{\n\s+return a\.length === b\.length && timingSafeEqual\(a, b\);/);
  assert.match(passwords, /timingSafeEqual\(actual, expectedBytes\)/);
  // The request path finds a credential by id and only then compares digests; never the secret itself.
  assert.match(access, /sameHash\(credential\.hash, hash\)/);
  const secretComparisons = [...access.matchAll(/([\w.]+)\s*(?:===|!==)\s*([\w.']+)/g)].filter(
    ([, left, right]) => /token|hash|secret|password/i.test(`${left} ${right}`) && !/^(undefined|null|''|'string')$/.test(right!),
  );
  assert.equal(secretComparisons.map(([text]) => text), []);
  assert.not.match(access, /\.equals\(/);

  const digest = hashToken('tms_key_0123456789abcdef_' + 'x'.repeat(43));
  assert.is(digest.length, 32);
  assert.ok(sameHash(digest, hashToken('tms_key_0123456789abcdef_' + 'x'.repeat(43))));
  assert.not.ok(sameHash(digest, hashToken('tms_key_0123456789abcdef_' + 'x'.repeat(42) + 'y')));
  assert.not.ok(sameHash(digest, digest.subarray(0, 16)), 'different lengths are unequal, not an exception');
});

test.run();
