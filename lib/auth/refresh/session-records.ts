import type { SignedInIdentity } from '../identity.js';
import { isPlainObject } from '../../core/is-plain-object.js';

/**
 * What a refresh session keeps in storage. Three kinds, all in the bridge's namespace:
 * - `refresh-session` (id: the session id): the one mutable record, changed only by compare-and-set;
 * - `refresh-token` (id: SHA-256 of a refresh token): which session a token belongs to, written once
 *   per token and kept until the session's absolute end, so a rotated token is recognised as reuse;
 * - `refresh-grace` (id: SHA-256 of the rotated token, and the claim owner): the sealed response
 *   of its rotation.
 */
export const REFRESH_KINDS = Object.freeze({
  session: 'refresh-session',
  token: 'refresh-token',
  grace: 'refresh-grace',
} as const);

/** A worker's hold on one rotation. `pending` is the sealed, verified provider result. */
export interface RotationClaim {
  readonly owner: string;
  /** Hash of the refresh token being rotated. */
  readonly token: string;
  /** Epoch ms; after it the claim may be taken over and its owner can no longer commit. */
  readonly deadline: number;
  readonly pending?: string;
}

export interface TrackedAccessToken {
  /** SHA-256 of the access token (its storage id). */
  readonly hash: string;
  readonly expiresAt: number;
}

export interface SessionRecord {
  readonly version: 1;
  readonly clientId: string;
  /** The client label the audit log uses. */
  readonly client: string;
  readonly resource: string;
  /** The scope granted at sign-in: the most any refresh may ask for. */
  readonly scope: readonly string[];
  /** As last verified with the provider. */
  readonly identity: SignedInIdentity;
  readonly createdAt: number;
  readonly absoluteExpiresAt: number;
  readonly inactivityExpiresAt: number;
  readonly generation: number;
  /** Hash of the one refresh token that may rotate now. */
  readonly current: string;
  /** Hash of the token rotated away last, and when: the grace window's subject. */
  readonly previous?: string;
  readonly rotatedAt?: number;
  /** The claim owner whose rotation committed: names its grace response. */
  readonly rotatedBy?: string;
  /** The provider's refresh token, sealed to namespace and session. */
  readonly upstream: string;
  readonly accessTokens: readonly TrackedAccessToken[];
  readonly claim?: RotationClaim;
}

export interface TokenIndexRecord {
  readonly version: 1;
  readonly session: string;
  readonly generation: number;
}

/** The response of one rotation, as the grace window hands it out again. Stored sealed. */
export interface GraceResponse {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly scope: readonly string[];
  readonly accessExpiresAt: number;
}

/** The provider's verified answer, kept sealed under the claim until the rotation commits. */
export interface VerifiedRefresh {
  readonly identity: SignedInIdentity;
  readonly upstreamRefreshToken: string;
}

/** When the session ends if nobody refreshes it: the earlier of inactivity and absolute. */
export function sessionEndsAt(record: Pick<SessionRecord, 'absoluteExpiresAt' | 'inactivityExpiresAt'>): number {
  return Math.min(record.absoluteExpiresAt, record.inactivityExpiresAt);
}

/** Whole seconds for a storage TTL that must outlive `until` (rounded up); 0 when it has passed. */
export function ttlUntil(until: number, now: number): number {
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

export function encodeSession(record: SessionRecord): string {
  return JSON.stringify(record);
}

// Storage is shared infrastructure: a record that does not have the expected shape is treated as
// absent (the session is unusable) rather than trusted field by field.
export function decodeSession(text: string | undefined): SessionRecord | undefined {
  const value = parse(text);
  if (!value || value.version !== 1) return undefined;
  const ok = isText(value.clientId) && isText(value.client) && isText(value.resource) && isTextList(value.scope)
    && isIdentity(value.identity) && isTime(value.createdAt) && isTime(value.absoluteExpiresAt)
    && isTime(value.inactivityExpiresAt) && Number.isSafeInteger(value.generation) && isText(value.current)
    && (value.previous === undefined || isText(value.previous)) && (value.rotatedAt === undefined || isTime(value.rotatedAt))
    && (value.rotatedBy === undefined || isText(value.rotatedBy))
    && isText(value.upstream) && Array.isArray(value.accessTokens)
    && value.accessTokens.every((entry: unknown) => isPlainObject(entry) && isText(entry.hash) && isTime(entry.expiresAt))
    && (value.claim === undefined || isClaim(value.claim));
  return ok ? (value as unknown as SessionRecord) : undefined;
}

export function decodeTokenIndex(text: string | undefined): TokenIndexRecord | undefined {
  const value = parse(text);
  return value && value.version === 1 && isText(value.session) && Number.isSafeInteger(value.generation)
    ? (value as unknown as TokenIndexRecord)
    : undefined;
}

export function decodeGraceResponse(text: string): GraceResponse | undefined {
  const value = parse(text);
  return value && isText(value.accessToken) && isText(value.refreshToken) && isTextList(value.scope) && isTime(value.accessExpiresAt)
    ? (value as unknown as GraceResponse)
    : undefined;
}

export function decodeVerifiedRefresh(text: string): VerifiedRefresh | undefined {
  const value = parse(text);
  return value && isIdentity(value.identity) && isText(value.upstreamRefreshToken) ? (value as unknown as VerifiedRefresh) : undefined;
}

function parse(text: string | undefined): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isIdentity(value: unknown): value is SignedInIdentity {
  return isPlainObject(value) && isText(value.subject) && isTextList(value.groups) && (value.email === undefined || typeof value.email === 'string');
}

function isClaim(value: unknown): value is RotationClaim {
  return isPlainObject(value) && isText(value.owner) && isText(value.token) && isTime(value.deadline) && (value.pending === undefined || isText(value.pending));
}
