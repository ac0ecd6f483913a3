import { BlockList, isIP } from 'node:net';

// BlockList compares addresses by value, so every spelling of ::1 and IPv4-mapped 127/8
// (::ffff:127.0.0.1, ::ffff:7f00:1, 0:0::1, ...) matches, not just the canonical text.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for addresses that only this machine can reach: 127/8, ::1 in any spelling, localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost')) return true;
  const version = isIP(lower);
  if (version === 0) return false;
  return LOOPBACK.check(lower, version === 4 ? 'ipv4' : 'ipv6');
}
