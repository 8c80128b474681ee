import { BlockList, isIP } from 'node:net';
import type { AnyRequest } from './one-port.ts';

/** `10.0.0.7`, `10.0.0.0/8`, `::1`, `fd00::/8`: an address or a subnet of one. */
interface ProxyEntry {
  address: string;
  prefix?: number;
  family: 'ipv4' | 'ipv6';
}

/** The entries of a comma-separated list of trusted proxies, or why one of them is not an address or subnet. */
export function parseTrustedProxies(list: string): ProxyEntry[] | string {
  const entries: ProxyEntry[] = [];
  for (const text of list.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [address = '', prefixText, extra] = text.split('/');
    const version = isIP(address);
    if (version === 0 || extra !== undefined) return `"${text}" is not an IP address or a subnet (address/prefix)`;
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) {
      entries.push({ address, family });
      continue;
    }
    const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    const bits = version === 4 ? 32 : 128;
    if (!(prefix <= bits)) return `"${text}": the prefix must be a whole number from 0 to ${bits}`;
    entries.push({ address, prefix, family });
  }
  return entries;
}

/**
 * Where a request comes from, for login throttling: the socket's peer, unless that peer is a trusted proxy
 * (`TMS_TRUSTED_PROXIES`). Then it is the nearest address in `X-Forwarded-For` that is not itself a trusted
 * proxy, read from the right, since only the part the trusted proxies appended can be believed: a client writes
 * whatever it likes to the left of it.
 */
export class ClientAddresses {
  private readonly trusted: BlockList | undefined;

  /** `trustedProxies`: a list `parseTrustedProxies` reads (the configuration checked it); none by default. */
  constructor(trustedProxies = '') {
    const entries = parseTrustedProxies(trustedProxies);
    if (typeof entries === 'string') throw new RangeError(`trusted proxies: ${entries}`);
    if (entries.length === 0) return;
    this.trusted = new BlockList();
    for (const entry of entries) {
      if (entry.prefix === undefined) this.trusted.addAddress(entry.address, entry.family);
      else this.trusted.addSubnet(entry.address, entry.prefix, entry.family);
    }
  }

  of(req: AnyRequest): string {
    const peer = plainAddress(req.socket?.remoteAddress ?? 'unknown');
    if (this.trusted === undefined || !this.isTrusted(peer)) return peer;
    const forwarded = req.headers['x-forwarded-for'];
    if (forwarded === undefined) return peer;
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = plainAddress(withoutPort(hops[i]!.trim()));
      // A hop that is not an address was not written by a proxy we trust: the walk stops at the last one it believed.
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!this.isTrusted(hop)) return client;
    }
    return client;
  }

  private isTrusted(address: string): boolean {
    const version = isIP(address);
    return version !== 0 && this.trusted!.check(address, version === 4 ? 'ipv4' : 'ipv6');
  }
}

const BRACKETED = /^\[([^\]]+)\](?::\d+)?$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/;

/** `[2001:db8::1]:443`, `[2001:db8::1]` and `203.0.113.5:1234` as some proxies write them, without the port. */
function withoutPort(hop: string): string {
  return BRACKETED.exec(hop)?.[1] ?? IPV4_WITH_PORT.exec(hop)?.[1] ?? hop;
}

/** `::ffff:203.0.113.5` (an IPv4 client on a dual-stack socket) as `203.0.113.5`: one client, one count. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
