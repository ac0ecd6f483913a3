import type { StoreKey } from './store.js';

/** Shared by the config parser and both stores so a prefix can never smuggle in a ':'. */
export const KEY_PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

// Namespace and kind are fixed segments: a ':' inside one would let two different keys render alike.
const KEY_SEGMENT = /^[^:]+$/;

/** `<prefix>:<namespace>:<kind>:<id>`; the id is last, so it may contain ':' without ambiguity. */
export function renderStoreKey(prefix: string, key: StoreKey): string {
  if (!KEY_SEGMENT.test(key.namespace)) throw new Error('store key namespace must be non-empty and contain no ":"');
  if (!KEY_SEGMENT.test(key.kind)) throw new Error('store key kind must be non-empty and contain no ":"');
  if (typeof key.id !== 'string' || key.id === '') throw new Error('store key id must be a non-empty string');
  return `${prefix}:${key.namespace}:${key.kind}:${key.id}`;
}

export function assertKeyPrefix(prefix: string): void {
  if (!KEY_PREFIX_PATTERN.test(prefix)) throw new Error('store key prefix must match [A-Za-z0-9_.-]{1,64}');
}

/** Redis `EX` takes whole seconds; a fraction or zero is a caller bug, not something to round. */
export function assertTtlSeconds(ttlSeconds: number): void {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1) throw new Error('store TTL must be a whole number of seconds >= 1');
}

/** A set's limit is a count of members: a whole number >= 1. */
export function assertLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error('store set limit must be a whole number >= 1');
}

export function assertMember(member: string): void {
  if (typeof member !== 'string' || member === '') throw new Error('store set members must be non-empty strings');
}

export function assertValue(value: string): void {
  if (typeof value !== 'string') throw new Error('store values must be strings');
}
