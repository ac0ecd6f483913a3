import { randomBytes } from 'node:crypto';
import type { RotationClaim, SessionRecord } from './session-records.js';

/**
 * Claims as values: a rotation is owned by whoever's claim the stored record carries, and every
 * change to it is a compare-and-set of the whole record, so of two workers only one can hold it,
 * and a worker whose claim was taken over can no longer commit (its expected record is gone).
 */

export function newClaimOwner(): string {
  return randomBytes(12).toString('base64url');
}

/** True while the claim's owner may still be working; after the deadline it can be taken over. */
export function isClaimLive(claim: RotationClaim | undefined, now: number): claim is RotationClaim {
  return claim !== undefined && claim.deadline > now;
}

/**
 * The record claimed for `owner`. A verified provider result left by a worker that did not finish
 * travels with the claim, so the new owner commits it without asking the provider again.
 */
export function claimed(record: SessionRecord, owner: string, now: number, deadlineMs: number): SessionRecord {
  const pending = record.claim?.token === record.current ? record.claim.pending : undefined;
  const claim: RotationClaim = { owner, token: record.current, deadline: now + deadlineMs, ...(pending ? { pending } : {}) };
  return { ...record, claim };
}

export function withPending(record: SessionRecord, pending: string): SessionRecord {
  if (!record.claim) throw new Error('a pending result needs a claim');
  return { ...record, claim: { ...record.claim, pending } };
}

/** Back to unclaimed with every other field as it was: restoring never extends an expiry. */
export function unclaimed(record: SessionRecord): SessionRecord {
  const { claim: _claim, ...rest } = record;
  return rest;
}

/**
 * The owner gives up but keeps the verified result: the deadline moves to now, so the next request
 * may take the claim over at once and commit the pending result.
 */
export function released(record: SessionRecord, now: number): SessionRecord {
  if (!record.claim) return record;
  return { ...record, claim: { ...record.claim, deadline: Math.min(record.claim.deadline, now) } };
}
