import { isIP } from 'node:net';
import type { Store } from '../../storage/store.js';
import { sha256 } from '../secrets.js';
import type { RateWindow } from './registration-policy.js';

/** Store kind of the registration counters. */
export const RATE_LIMIT_KIND = 'dcr-limit';

/** `first` marks the first refusal of a window, so a flood is logged once, not once per request. */
export type RateVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number; readonly first: boolean };

/**
 * Counts one event in the current fixed window of `subject` and says whether it is within `limit`.
 * Windows are aligned to the clock (not to the first event) and named in the key, so every instance
 * sharing the store counts into the same window and Retry-After is simply the time to its end. A
 * fixed window admits at most twice the limit across one boundary; that is enough for a flood guard.
 */
export async function countEvent(store: Store, namespace: string, subject: string, limit: RateWindow, nowMs: number): Promise<RateVerdict> {
  const windowMs = limit.windowSeconds * 1000;
  const window = Math.floor(nowMs / windowMs);
  const count = await store.increment({ namespace, kind: RATE_LIMIT_KIND, id: `${subject}:${window}` }, limit.windowSeconds);
  if (count <= limit.max) return { allowed: true };
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000)),
    first: count === limit.max + 1,
  };
}

/**
 * The rate-limit subject for a peer address: an IPv4 address, or the /64 of an IPv6 address (one
 * host usually owns a whole /64, so counting single IPv6 addresses would limit nothing). Hashed, so
 * the store holds no addresses. Peers without an address share one subject.
 */
export function addressSubject(address: string | undefined): string {
  return `ip:${sha256(addressGroup(address))}`;
}

export function addressGroup(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const bare = address.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return 'unknown';
  return `${expandIpv6(bare).slice(0, 4).join(':')}::/64`;
}

/** Eight hextets, without leading zeros, for a valid IPv6 address (an embedded IPv4 tail included). */
function expandIpv6(address: string): string[] {
  let text = address;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = rest === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((part) => parseInt(part, 16).toString(16));
}
