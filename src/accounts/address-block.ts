import { isIP } from 'node:net';

/**
 * The unit in which failed logins from a client address are counted: an IPv4 address as it is, an IPv6 address by
 * its /64, the block one site (often one host) is given and within which it can take any address it likes.
 */
export function addressBlock(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  // A dotted IPv4 tail (`64:ff9b::192.0.2.1`) fills the last two groups.
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
