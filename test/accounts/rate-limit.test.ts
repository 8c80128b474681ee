import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimiter } from '../../src/accounts/rate-limit.ts';
import { Clock } from './support.ts';

test('a burst of twice the rate passes, then requests wait for tokens with a retry-after', () => {
  const clock = new Clock();
  const limiter = new RateLimiter({ ratePerSecond: 5, now: clock.now });
  for (let i = 0; i < 10; i++) assert.equal(limiter.take('key_a'), { ok: true }, `request ${i + 1}`);
  assert.equal(limiter.take('key_a'), { ok: false, retryAfterSeconds: 1 });
  clock.advance(200); // one token at 5/s
  assert.equal(limiter.take('key_a'), { ok: true });
  assert.equal(limiter.take('key_a').ok, false);
});

test('credentials have separate buckets', () => {
  const clock = new Clock();
  const limiter = new RateLimiter({ ratePerSecond: 1, now: clock.now });
  assert.ok(limiter.take('a').ok);
  assert.ok(limiter.take('a').ok);
  assert.not.ok(limiter.take('a').ok);
  assert.ok(limiter.take('b').ok);
});

test('retry-after is the wait for the next token, in whole seconds', () => {
  const clock = new Clock();
  const limiter = new RateLimiter({ ratePerSecond: 0.25, burst: 1, now: clock.now });
  assert.ok(limiter.take('slow').ok);
  assert.equal(limiter.take('slow'), { ok: false, retryAfterSeconds: 4 });
  clock.advance(2500);
  assert.equal(limiter.take('slow'), { ok: false, retryAfterSeconds: 2 });
  clock.advance(1500);
  assert.ok(limiter.take('slow').ok);
});

test('the rate holds over time: 100 s at 10/s admits 20 + 1000 requests', () => {
  const clock = new Clock();
  const limiter = new RateLimiter({ ratePerSecond: 10, now: clock.now });
  let admitted = 0;
  for (let ms = 0; ms < 100_000; ms += 10) {
    clock.advance(ms === 0 ? 0 : 10);
    for (let i = 0; i < 3; i++) if (limiter.take('busy').ok) admitted += 1;
  }
  assert.ok(admitted >= 1019 && admitted <= 1020, `admitted ${admitted}`);
});

test('0 turns limiting off', () => {
  const limiter = new RateLimiter({ ratePerSecond: 0 });
  assert.not.ok(limiter.enabled);
  for (let i = 0; i < 100_000; i++) assert.ok(limiter.take('bench').ok);
  assert.is(limiter.size, 0);
});

test('a negative or non-numeric rate is refused', () => {
  assert.throws(() => new RateLimiter({ ratePerSecond: -1 }), /rate limit must be a number/);
  assert.throws(() => new RateLimiter({ ratePerSecond: Number.NaN }), /rate limit must be a number/);
});

test('memory stays bounded: idle buckets are dropped, and the cap holds under a flood of credentials', () => {
  const clock = new Clock();
  const limiter = new RateLimiter({ ratePerSecond: 10, maxEntries: 1000, now: clock.now });
  for (let i = 0; i < 5000; i++) limiter.take(`flood_${i}`);
  assert.ok(limiter.size <= 1000, `size ${limiter.size}`);
  clock.advance(2000); // every bucket has refilled: they are all the same as new
  limiter.take('after');
  assert.is(limiter.size, 1);
  // A new bucket starts full: 1 + 19 more make the burst of 20, then the 21st waits.
  for (let i = 0; i < 19; i++) assert.ok(limiter.take('after').ok);
  assert.not.ok(limiter.take('after').ok);
});

test.run();
