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
  const finished: number[] = [];
  const seen: number[][] = [];
  const started = performance.now();
  const hashes = Array.from({ length: 3 }, (_, i) => hashPassword(`password ${i}`, COST).then(() => finished.push(performance.now())));
  const watch = setInterval(() => linux && seen.push(threadNices()), 5);
  await Promise.all(hashes);
  clearInterval(watch);
  // Measured within the one run, so a machine slower or faster as a whole moves both sides alike: one after another,
  // the last ends about two derivations after the first (which took one); side by side, they end close together.
  // Half of that margin is left to a burst of load that slows the first derivation alone.
  const first = finished[0]! - started;
  const spread = finished.at(-1)! - finished[0]!;
  assert.ok(spread > first / 2, `the first derivation ended after ${first.toFixed(0)} ms, the last ${spread.toFixed(0)} ms after it`);
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
