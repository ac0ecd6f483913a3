import { isIP } from 'node:net';

/** True for addresses that only this machine can reach: 127/8, ::1, IPv4-mapped 127/8, localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost')) return true;
  const version = isIP(lower);
  if (version === 4) return lower.startsWith('127.');
  if (version === 6) {
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^(?:0:0:0:0:0|:):ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && mapped[1]!.startsWith('127.');
  }
  return false;
}
