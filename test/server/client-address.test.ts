import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientAddresses, parseTrustedProxies } from '../../src/server/client-address.ts';
import type { AnyRequest } from '../../src/server/one-port.ts';

const request = (peer: string, forwardedFor?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as AnyRequest;

test('without trusted proxies the peer is the client, whatever X-Forwarded-For says', () => {
  assert.is(new ClientAddresses().of(request('198.51.100.7', '203.0.113.5')), '198.51.100.7');
  assert.is(new ClientAddresses('10.0.0.0/8').of(request('198.51.100.7', '203.0.113.5')), '198.51.100.7', 'an untrusted peer');
});

test('behind trusted proxies the client is the nearest address they did not write themselves', () => {
  const addresses = new ClientAddresses('10.0.0.0/8, 127.0.0.1, fd00::/8');
  assert.is(addresses.of(request('10.1.2.3', '203.0.113.5')), '203.0.113.5');
  assert.is(addresses.of(request('127.0.0.1', 'spoofed, 198.51.100.1, 203.0.113.5, 10.9.9.9')), '203.0.113.5', 'trusted hops are passed over, from the right');
  assert.is(addresses.of(request('::ffff:127.0.0.1', '203.0.113.5')), '203.0.113.5', 'an IPv4 peer on a dual-stack socket');
  assert.is(addresses.of(request('10.1.2.3', '203.0.113.5:51234')), '203.0.113.5', 'a port some proxies add');
  assert.is(addresses.of(request('10.1.2.3', '[2001:db8::5]:443, [10.0.0.9]')), '2001:db8::5', 'IPv6 in brackets, with or without a port');
  assert.is(addresses.of(request('10.1.2.3', '::ffff:203.0.113.5')), '203.0.113.5', 'an IPv4 client is one client however it is written');
  assert.is(addresses.of(request('::ffff:198.51.100.7', '203.0.113.5')), '198.51.100.7', 'an untrusted dual-stack peer, as IPv4');
  assert.is(addresses.of(request('fd00::1', ['2001:db8::5', 'fd00::2'])), '2001:db8::5', 'the header given twice reads as one list');
  assert.is(addresses.of(request('10.1.2.3')), '10.1.2.3', 'no header: the proxy itself');
  assert.is(addresses.of(request('10.1.2.3', '10.0.0.9, 10.0.0.8')), '10.0.0.9', 'every hop trusted: the farthest');
  assert.is(addresses.of(request('10.1.2.3', '203.0.113.5, not-an-address')), '10.1.2.3', 'a hop no proxy wrote ends the walk at the last one believed');
  assert.is(addresses.of(request('10.1.2.3', '203.0.113.5, 10.0.0.8, bad')), '10.1.2.3');
});

test('a trusted proxy list is addresses or subnets; anything else is named', () => {
  assert.equal(parseTrustedProxies(' 10.0.0.0/8 ,::1,'), [
    { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
    { address: '::1', family: 'ipv6' },
  ]);
  assert.is(parseTrustedProxies('10.0.0.0/33'), '"10.0.0.0/33": the prefix must be a whole number from 0 to 32');
  assert.is(parseTrustedProxies('fd00::/129'), '"fd00::/129": the prefix must be a whole number from 0 to 128');
  assert.is(parseTrustedProxies('10.0.0.0/x'), '"10.0.0.0/x": the prefix must be a whole number from 0 to 32');
  assert.is(parseTrustedProxies('proxy.internal'), '"proxy.internal" is not an IP address or a subnet (address/prefix)');
  assert.is(parseTrustedProxies('10.0.0.0/8/8'), '"10.0.0.0/8/8" is not an IP address or a subnet (address/prefix)');
});

test.run();
