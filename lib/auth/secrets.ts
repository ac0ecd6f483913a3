import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque bearer value: 256 random bits, URL-safe. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Storage keys for tokens and codes: only the hash is ever stored, so a storage dump grants nothing. */
export function sha256(value: string): string {
  // The one-shot hash: every signed-in call hashes its token, and this skips building a Hash object.
  return hash('sha256', value, 'base64url');
}

/** The 12-character session label the audit log uses instead of anything that grants access. */
export function sessionLabel(value: string): string {
  return hash('sha256', `session:${value}`, 'hex').slice(0, 12);
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
