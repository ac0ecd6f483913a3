import { BlockList, isIP } from 'node:net';

/** Decides whether the metadata fetcher may connect to an address. */
export type AddressPolicy = (ip: string) => boolean;

// IPv4 ranges no client metadata host legitimately lives in (IANA special-purpose registry):
// this-network, private, shared/CGNAT, loopback, link-local, IETF protocol assignments, the three
// documentation nets, the old 6to4 relay anycast, benchmarking, multicast, and 240/4 (reserved,
// which also holds the limited broadcast 255.255.255.255).
const NON_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// IPv6 is judged by an allow-then-deny rule: only global unicast (2000::/3) is ever public, plus the
// two forms that merely carry an IPv4 address (IPv4-mapped and the NAT64 well-known prefix, which a
// DNS64 resolver hands out for IPv4-only hosts). Everything else (::, ::1, the deprecated
// IPv4-compatible ::/96, ULA fc00::/7, link-local fe80::/10, site-local, multicast ff00::/8, the
// local-use NAT64 prefix 64:ff9b:1::/48, discard 100::/64, ...) is refused without being listed.
const IPV6_PUBLIC_SPACE = new BlockList();
IPV6_PUBLIC_SPACE.addSubnet('2000::', 3, 'ipv6');
IPV6_PUBLIC_SPACE.addSubnet('::ffff:0:0', 96, 'ipv6');
IPV6_PUBLIC_SPACE.addSubnet('64:ff9b::', 96, 'ipv6');

// Non-public parts of 2000::/3: IETF protocol assignments (Teredo, benchmarking, ORCHID, ...) and
// the documentation prefixes.
const NON_PUBLIC_V6: readonly (readonly [string, number])[] = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
];

/** `10.0.0.0` -> `a00:0`: the two low hextets an embedded IPv4 address occupies. */
function hextets(ipv4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

const NON_PUBLIC = new BlockList();
for (const [base, prefix] of NON_PUBLIC_V4) {
  NON_PUBLIC.addSubnet(base, prefix, 'ipv4');
  // BlockList already matches IPv4-mapped spellings against IPv4 rules; the mapped rule is listed
  // anyway so the policy does not hinge on that. NAT64 and 6to4 embed the IPv4 address too, and
  // nothing in BlockList unwraps those.
  NON_PUBLIC.addSubnet(`::ffff:${hextets(base)}`, 96 + prefix, 'ipv6');
  NON_PUBLIC.addSubnet(`64:ff9b::${hextets(base)}`, 96 + prefix, 'ipv6');
  NON_PUBLIC.addSubnet(`2002:${hextets(base)}::`, 16 + prefix, 'ipv6');
}
for (const [base, prefix] of NON_PUBLIC_V6) NON_PUBLIC.addSubnet(base, prefix, 'ipv6');

/**
 * True only for addresses on the public internet. Anything unparsable, scoped (`fe80::1%eth0`) or in
 * a special-purpose range is false, so callers fail closed. Bracketed IPv6 (`[::1]`, as in URL host
 * names) is accepted. Comparison is by value, so every spelling of an address gets the same answer.
 */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(bare);
  if (family === 4) return !NON_PUBLIC.check(bare, 'ipv4');
  if (family !== 6 || bare.includes('%')) return false;
  return IPV6_PUBLIC_SPACE.check(bare, 'ipv6') && !NON_PUBLIC.check(bare, 'ipv6');
}
