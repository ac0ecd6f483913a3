import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque bearer value: 256 random bits, URL-safe. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Storage keys for tokens and codes: only the hash is ever stored, so a storage dump grants nothing. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** The 12-character session label the audit log uses instead of anything that grants access. */
export function sessionLabel(value: string): string {
  return createHash('sha256').update(`session:${value}`).digest('hex').slice(0, 12);
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
