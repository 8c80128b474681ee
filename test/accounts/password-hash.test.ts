// Password derivations run one at a time, in one thread of their own at a lower CPU priority than the request
// thread (src/accounts/password-hash.ts): concurrent logins neither take every core nor every libuv thread.
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HASH_QUEUE_LIMIT, PasswordHashingBusyError, hashPassword, verifyPassword } from '../../src/accounts/password-hash.ts';

const COST = { log2N: 12, r: 8, p: 40 };

/** Nice value of a thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function nice(tid: string | number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
const threadNices = () => readdirSync('/proc/self/task').map(nice);

test('hashes verify, and a wrong password does not', async () => {
  const hash = await hashPassword('a good password', COST);
  assert.ok(await verifyPassword('a good password', hash));
  assert.not.ok(await verifyPassword('a good passworD', hash));
});

test('concurrent derivations run one after another in one thread at a lower priority than the request thread', async () => {
  const linux = process.platform === 'linux';
  const timeOne = async (password: string) => {
    const one = performance.now();
    await hashPassword(password, COST);
    return performance.now() - one;
  };
  const aloneBefore = await timeOne('password alone, before');
  const finished: number[] = [];
  const seen: number[][] = [];
  const hashes = Array.from({ length: 3 }, (_, i) => hashPassword(`password ${i}`, COST).then(() => finished.push(performance.now())));
  const watch = setInterval(() => linux && seen.push(threadNices()), 5);
  const started = performance.now();
  await Promise.all(hashes);
  clearInterval(watch);
  // One alone, timed before and after: the quicker, in case the shared machine slowed down during the other.
  const alone = Math.min(aloneBefore, await timeOne('password alone, after'));
  // Three at once take about three times one: they did not run side by side.
  assert.ok(finished.at(-1)! - started > 2 * alone, `3 derivations in ${(finished.at(-1)! - started).toFixed(0)} ms, one alone ${alone.toFixed(0)} ms`);
  if (linux) {
    assert.is(nice(process.pid), 0, 'the request thread keeps the default priority');
    const niced = Math.max(...seen.map((nices) => nices.filter((value) => value > 0).length));
    assert.is(niced, 1, 'one thread, and only one, runs at a lower priority while hashing');
  }
});

test('derivations beyond the queue limit are refused at once with a retry hint, the queued ones all finish', async () => {
  const hash = await hashPassword('queued password', COST);
  const outcomes = await Promise.all(
    Array.from({ length: HASH_QUEUE_LIMIT * 3 }, () => verifyPassword('queued password', hash).then((ok) => ok, (error: unknown) => error)),
  );
  const verified = outcomes.filter((outcome) => outcome === true).length;
  const busy = outcomes.filter((outcome): outcome is PasswordHashingBusyError => outcome instanceof PasswordHashingBusyError);
  assert.is(verified + busy.length, outcomes.length, 'each one verified or was turned away, nothing else');
  assert.ok(verified >= HASH_QUEUE_LIMIT && verified <= HASH_QUEUE_LIMIT + 2, `${verified} verified: the running one(s) and the queue`);
  assert.ok(busy.length >= HASH_QUEUE_LIMIT, `${busy.length} refused`);
  for (const error of busy) {
    assert.ok(Number.isInteger(error.retryAfterSeconds) && error.retryAfterSeconds >= 1, `retry after ${error.retryAfterSeconds} s`);
    assert.match(error.message, /too many passwords are being checked right now; retry after \d+ s/);
  }
  assert.ok(await verifyPassword('queued password', hash), 'once the queue has drained, a derivation runs again');
});

test.run();
