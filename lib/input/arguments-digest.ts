import { createHash } from 'node:crypto';
import { isPlainObject } from '../core/is-plain-object.js';

/**
 * A digest of a call's arguments (SHA-256 of their canonical JSON, base64url), bound into the
 * sealed state of a call that asks the client: the retry that brings the answers must carry the
 * same arguments. Canonical means member order does not count (clients rebuild the arguments
 * object for the retry), array order and every value do.
 */
export function argumentsDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}

/** JSON with every object's members sorted by name; members whose value JSON drops are dropped. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (isPlainObject(value)) {
    const members = Object.keys(value)
      .sort()
      .filter((name) => value[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(value[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
