import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** Where a request came from, as far as it can be trusted. */
export type ClientAddressOf = (req: IncomingMessage) => string | undefined;

/** The socket's peer: right unless a proxy or load balancer stands in front of the listener. */
export const peerAddress: ClientAddressOf = (req) => req.socket.remoteAddress;

/**
 * Parses a runtime's trusted proxies: addresses or CIDR ranges (IPv4 or IPv6) separated by commas
 * or spaces. Returns the canonical list, or the first entry that is not one (for the error).
 */
export function parseTrustedProxies(text: string): { readonly ok: true; readonly entries: readonly string[] } | { readonly ok: false; readonly invalid: string } {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (toRule(entry) === undefined) return { ok: false, invalid: entry };
  }
  return { ok: true, entries: [...new Set(entries)] };
}

/**
 * The client's address behind trusted proxies. Only when the socket's peer is a trusted proxy is
 * X-Forwarded-For read, from its right end (the entry the nearest proxy appended) leftwards, and the
 * first address not itself trusted is the client; entries further left were written by whoever sent
 * the request and prove nothing. A malformed entry ends the walk at the last proxy that vouched for
 * it, so garbage can narrow a client to its proxy's address but never forge another one.
 */
export function createClientAddressOf(trustedProxies: readonly string[]): ClientAddressOf {
  if (trustedProxies.length === 0) return peerAddress;
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const rule = toRule(entry);
    if (!rule) throw new TypeError(`not an address or CIDR range: ${entry}`);
    if (rule.prefix === undefined) trusted.addAddress(rule.address, rule.family);
    else trusted.addSubnet(rule.address, rule.prefix, rule.family);
  }
  const isTrusted = (address: string) => {
    const version = isIP(address);
    return version !== 0 && trusted.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
  return (req) => {
    let address = req.socket.remoteAddress;
    if (address === undefined || !isTrusted(address)) return address;
    const forwarded = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded ?? '').split(',');
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = hops[i]!.trim();
      if (isIP(hop) === 0) return address;
      address = hop;
      if (!isTrusted(hop)) return hop;
    }
    return address;
  };
}

interface Rule {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number | undefined;
}

function toRule(entry: string): Rule | undefined {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family, prefix: undefined };
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix <= (version === 4 ? 32 : 128) ? { address, family, prefix } : undefined;
}
