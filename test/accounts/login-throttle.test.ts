import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoginThrottle } from '../../src/accounts/login-throttle.ts';

const locked = (throttle: LoginThrottle, username: string, client: string): boolean => {
  try {
    throttle.begin(username, client).withdrawn();
    return false;
  } catch {
    return true;
  }
};

test('a success clears the account\'s failures but not the guesses still being checked: those that fail count', () => {
  const throttle = new LoginThrottle({ accountLimit: 3, clientLimit: 100 }, () => 0);
  const guesses = [throttle.begin('alice', '10.0.0.1'), throttle.begin('alice', '10.0.0.2')];
  throttle.begin('alice', '10.0.0.3').succeeded();
  for (const guess of guesses) guess.failed();
  assert.not.ok(locked(throttle, 'alice', '10.0.0.4'), 'two failures of three');
  throttle.begin('alice', '10.0.0.4').failed();
  assert.ok(locked(throttle, 'alice', '10.0.0.5'), 'the third locks the account');
});

test('a success with nothing else under way forgets the account: the next lock is the first again', () => {
  let now = 0;
  const throttle = new LoginThrottle({ accountLimit: 1, clientLimit: 100, lockMs: 1000 }, () => now);
  throttle.begin('bob', 'a').failed();
  assert.ok(locked(throttle, 'bob', 'b'));
  now += 1000;
  throttle.begin('bob', 'b').succeeded();
  throttle.begin('bob', 'c').failed();
  now += 999;
  assert.ok(locked(throttle, 'bob', 'd'), 'a first lock of 1 s');
  now += 1;
  assert.not.ok(locked(throttle, 'bob', 'd'), 'not the doubled 2 s');
});

test.run();
