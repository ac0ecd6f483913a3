import { describeError } from '../../core/errors.js';
import { endAccessGrant } from '../access-revocation.js';
import type { SignedInIdentity } from '../identity.js';
import { OAuthFailure } from '../oauth-error.js';
import { newOpaqueToken, sha256 } from '../secrets.js';
import { isUpstreamError } from '../upstream/upstream-error.js';
import { accessLifetimeSeconds, issueAccessToken } from './access-tokens.js';
import { handBack } from './claim-hand-back.js';
import { unclaimed, withPending } from './claims.js';
import { SealError } from './crypto-box.js';
import { REFRESH_TIMING } from './refresh-defaults.js';
import { bestEffort, endSession, revokeFor, type AuditSubject, type RefreshContext } from './refresh-context.js';
import { sessionEnded, unavailable } from './refresh-failures.js';
import { decodeVerifiedRefresh, type SessionRecord, type TrackedAccessToken, type VerifiedRefresh } from './session-records.js';

/** The rotation's owner lost its claim to another worker: nothing was committed; look again. */
export const LOST = Symbol('lost');

export interface RotatedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly expiresIn: number;
  readonly scope: string[];
}

export interface RotationInput {
  readonly session: string;
  /** The session's 12-character label: AccessGrant.session and the audit log. */
  readonly label: string;
  readonly about: AuditSubject;
  /** Hash of the refresh token presented (the session's current one). */
  readonly tokenHash: string;
  /** The scope this response is for: the granted scope or a narrower one. */
  readonly scope: string[];
  /** The record as stored now, with this worker's claim, and its exact stored text. */
  readonly record: SessionRecord;
  readonly raw: string;
}

/**
 * One rotation by the worker that holds the claim: get a verified provider result (from the
 * provider, or the pending one a previous owner left), keep it sealed as pending, write the new
 * tokens, then commit by compare-and-set. Every step that fails before the commit leaves the
 * session as it was (or recoverable by the claim deadline); a worker whose claim was taken over
 * cannot commit.
 */
export async function rotate(ctx: RefreshContext, input: RotationInput): Promise<RotatedTokens | typeof LOST> {
  let { record, raw } = input;
  let verified: VerifiedRefresh;
  const pending = record.claim?.pending;
  if (pending !== undefined) {
    const opened = openPending(ctx, input, pending);
    if (!opened) throw await revokeFor(ctx, input.session, record, input.about, 'revoked', 'pending_unreadable');
    verified = opened;
  } else {
    verified = await askProvider(ctx, input);
    const sealed = ctx.box.seal('pending', pendingBinding(ctx, input), JSON.stringify(verified));
    const next = withPending(record, sealed);
    let stored: { ok: boolean; raw: string };
    try {
      stored = await ctx.sessions.replace(input.session, raw, next);
    } catch (error) {
      // The write may have been applied before its reply was lost: hand back whichever is stored
      // (with the verified result, kept pending, so the provider is not asked twice).
      await handBack(ctx, input.session, [record, next]);
      throw error;
    }
    if (!stored.ok) return LOST;
    record = next;
    raw = stored.raw;
  }

  if (!ctx.admits(record.resource, verified.identity)) {
    throw await revokeFor(ctx, input.session, record, { ...input.about, subject: verified.identity.subject }, 'revoked', 'policy_refused');
  }

  try {
    return await commit(ctx, input, record, raw, verified);
  } catch (error) {
    if (error instanceof OAuthFailure) throw error;
    // Storage failed half way: the verified result stays pending and the claim is released, so the
    // next request commits it at once without asking the provider again.
    await handBack(ctx, input.session, [record]);
    throw error;
  }
}

async function askProvider(ctx: RefreshContext, input: RotationInput): Promise<VerifiedRefresh> {
  const { record } = input;
  let upstreamToken: string;
  try {
    upstreamToken = ctx.box.open('upstream', [ctx.namespace, input.session], record.upstream);
  } catch (error) {
    if (!(error instanceof SealError)) throw error;
    ctx.logger.warn('a refresh session\'s provider credential does not open with the refresh key (key replaced or record altered); the session ends');
    throw await revokeFor(ctx, input.session, record, input.about, 'revoked', 'upstream_credential_unreadable');
  }

  const restore = () => handBack(ctx, input.session, [record]);
  let result: Awaited<ReturnType<RefreshContext['upstream']['refresh']>>;
  try {
    result = await ctx.upstream.refresh(upstreamToken, record.identity.subject);
  } catch (error) {
    if (isUpstreamError(error) && error.reason === 'unavailable') {
      await restore();
      ctx.logger.warn(`refresh: the identity provider is unavailable (${error.message})`);
      ctx.audit('transient', input.about, 'provider_unavailable');
      throw unavailable('provider_unavailable', error.retryAfterSeconds);
    }
    if (isUpstreamError(error) && error.reason === 'provider_config') {
      await restore();
      ctx.logger.error(`refresh: the identity provider refused the bridge's client configuration (provider_config): ${error.message}`);
      ctx.audit('provider_config', input.about, 'provider_config');
      throw unavailable('provider_config');
    }
    if (isUpstreamError(error)) {
      ctx.logger.info(`refresh: the identity provider refused the session (${error.code}): ${error.message}`);
      throw await revokeFor(ctx, input.session, record, input.about, 'revoked', error.code);
    }
    await restore();
    ctx.logger.error(`refresh: the provider call failed unexpectedly: ${describeError(error)}`);
    ctx.audit('transient', input.about, 'provider_call_failed');
    throw unavailable('provider_call_failed');
  }

  const identity = checkedIdentity(result?.identity);
  if (!identity || identity.subject !== record.identity.subject) {
    throw await revokeFor(ctx, input.session, record, input.about, 'revoked', identity ? 'subject_changed' : 'identity_invalid');
  }
  const rotated = result.upstreamRefreshToken;
  return { identity, upstreamRefreshToken: typeof rotated === 'string' && rotated !== '' ? rotated : upstreamToken };
}

async function commit(
  ctx: RefreshContext,
  input: RotationInput,
  record: SessionRecord,
  raw: string,
  verified: VerifiedRefresh,
): Promise<RotatedTokens | typeof LOST> {
  const now = ctx.now();
  // Only the inactivity window moves; the absolute end stays where sign-in put it.
  const inactivityExpiresAt = Math.min(record.absoluteExpiresAt, now + ctx.lifetimes.inactivitySeconds * 1000);
  const expiresIn = accessLifetimeSeconds(ctx.lifetimes.accessSeconds, now, inactivityExpiresAt);
  if (expiresIn < 1) {
    await endSession(ctx, input.session, record);
    ctx.audit('unknown', input.about, 'session_expired');
    throw sessionEnded('session_expired');
  }
  const refreshToken = newOpaqueToken();
  const refreshHash = sha256(refreshToken);
  const access = await issueAccessToken(
    ctx.store,
    ctx.namespace,
    { clientId: record.clientId, client: record.client, resource: record.resource, scope: input.scope, identity: verified.identity, session: input.label },
    expiresIn,
    now,
  );
  const generation = record.generation + 1;
  const owner = record.claim?.owner;
  if (owner === undefined) throw new Error('a rotation commits only under its own claim');
  await ctx.sessions.indexToken(refreshHash, { version: 1, session: input.session, generation }, record.absoluteExpiresAt);
  // Written before the commit, so a retry that finds the rotation committed also finds its response.
  await ctx.grace.write(
    input.session,
    input.tokenHash,
    owner,
    { accessToken: access.accessToken, refreshToken, scope: input.scope, accessExpiresAt: access.expiresAt },
    Math.min(now + ctx.timing.graceMs, access.expiresAt, inactivityExpiresAt),
  );
  const next: SessionRecord = {
    ...unclaimed(record),
    identity: verified.identity,
    generation,
    current: refreshHash,
    previous: input.tokenHash,
    rotatedAt: now,
    rotatedBy: owner,
    inactivityExpiresAt,
    upstream: ctx.box.seal('upstream', [ctx.namespace, input.session], verified.upstreamRefreshToken),
    accessTokens: tracked(record.accessTokens, { hash: access.hash, expiresAt: access.expiresAt }, now),
  };
  const stored = await ctx.sessions.replace(input.session, raw, next);
  if (!stored.ok) {
    ctx.logger.warn('refresh: a worker lost its claim before committing; its result was discarded');
    // Nobody was given this access token; do not leave it valid.
    await bestEffort(() => endAccessGrant(ctx.store, ctx.namespace, access.hash));
    return LOST;
  }
  ctx.audit('success', { ...input.about, subject: verified.identity.subject });
  return { accessToken: access.accessToken, refreshToken, expiresIn, scope: [...input.scope] };
}

function openPending(ctx: RefreshContext, input: RotationInput, sealed: string): VerifiedRefresh | undefined {
  try {
    return decodeVerifiedRefresh(ctx.box.open('pending', pendingBinding(ctx, input), sealed));
  } catch (error) {
    if (error instanceof SealError) return undefined;
    throw error;
  }
}

/** A pending result belongs to one rotation: this session, from this token. */
function pendingBinding(ctx: RefreshContext, input: RotationInput): string[] {
  return [ctx.namespace, input.session, input.tokenHash];
}

/** The identity as the bridge stores it, or undefined when the refresher handed back something else. */
function checkedIdentity(value: unknown): SignedInIdentity | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { subject, email, groups } = value as Record<string, unknown>;
  if (typeof subject !== 'string' || subject === '') return undefined;
  if (!Array.isArray(groups) || !groups.every((group): group is string => typeof group === 'string')) return undefined;
  return {
    subject,
    ...(typeof email === 'string' && email !== '' ? { email } : {}),
    groups: [...groups],
  };
}

/** Live access tokens of the session, newest last, bounded: revocation deletes these. */
function tracked(current: readonly TrackedAccessToken[], added: TrackedAccessToken, now: number): TrackedAccessToken[] {
  const live = current.filter((token) => token.expiresAt > now);
  return [...live, added].slice(-REFRESH_TIMING.maxTrackedAccessTokens);
}
