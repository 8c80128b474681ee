import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addressBlock } from '../../src/accounts/address-block.ts';
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

test('a spray of new names cannot make the throttle forget an account it has nearly locked', () => {
  let now = 0;
  const throttle = new LoginThrottle({ accountLimit: 10, clientLimit: 1_000_000, maxEntries: 100 }, () => now);
  for (let i = 0; i < 9; i++) throttle.begin('alice', '10.0.0.1').failed();
  for (let i = 0; i < 1000; i++) {
    now += 1;
    throttle.begin(`junk${i}`, `10.1.${i >> 8}.${i & 255}`).failed();
  }
  throttle.begin('alice', '10.0.0.1').failed();
  assert.ok(locked(throttle, 'alice', '10.0.0.2'), 'the tenth failure still locks alice');
});

test('an IPv6 client is counted by its /64: taking another address in it does not escape the lock', () => {
  const throttle = new LoginThrottle({ accountLimit: 100, clientLimit: 3 }, () => 0);
  for (const address of ['2001:db8:1:2::1', '2001:db8:1:2:aaaa::7', '2001:DB8:1:2:ffff:ffff:ffff:fffe']) throttle.begin('alice', address).failed();
  assert.ok(locked(throttle, 'alice', '2001:db8:1:2::99'), 'the same /64');
  assert.not.ok(locked(throttle, 'alice', '2001:db8:1:3::1'), 'the next /64');
  assert.not.ok(locked(throttle, 'alice', '192.0.2.1'), 'IPv4 addresses count one by one');
});

test('an address block: IPv4 as it is, IPv6 by its first four groups however it is written', () => {
  assert.is(addressBlock('192.0.2.1'), '192.0.2.1');
  assert.is(addressBlock('2001:db8::1'), '2001:db8:0:0::/64');
  assert.is(addressBlock('2001:0db8:0000:0000:0001:0000:0000:0001'), '2001:db8:0:0::/64');
  assert.is(addressBlock('2001:db8:a:b:c::'), '2001:db8:a:b::/64');
  assert.is(addressBlock('::1'), '0:0:0:0::/64');
  assert.is(addressBlock('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(addressBlock('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  assert.is(addressBlock('1:2:3:4:5:6:192.0.2.1'), '1:2:3:4::/64');
  assert.is(addressBlock('unknown'), 'unknown');
});

test.run();
