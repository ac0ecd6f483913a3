import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { isStorageUnavailable, type Store } from '../../storage/store.js';
import type { SignedInIdentity } from '../identity.js';
import { OAuthFailure } from '../oauth-error.js';
import { newOpaqueToken, sessionLabel, sha256 } from '../secrets.js';
import type { RevokedSession } from '../registration/revoke.js';
import type { UpstreamRefresher } from '../upstream/upstream-refresh.js';
import { accessLifetimeSeconds, issueAccessToken } from './access-tokens.js';
import { handBack } from './claim-hand-back.js';
import { claimed, isClaimLive, newClaimOwner } from './claims.js';
import { createCryptoBox, SealError } from './crypto-box.js';
import { GraceCache } from './grace-cache.js';
import { parseRefreshLifetimes, type RefreshLifetimes } from './lifetimes.js';
import type { RefreshAuditSink, RefreshOutcome } from './refresh-audit.js';
import { endSession, revokeFor, type AuditSubject, type RefreshContext, type RefreshTiming } from './refresh-context.js';
import { REFRESH_TIMING } from './refresh-defaults.js';
import { sessionEnded, unavailable, unknownToken } from './refresh-failures.js';
import { effectiveScope, parseRefreshRequest, sameScope, type RefreshRequest } from './refresh-request.js';
import { LOST, rotate, type RotatedTokens } from './rotation.js';
import { sessionEndsAt, type SessionRecord } from './session-records.js';
import { SessionStore } from './session-store.js';

export type { RefreshRequest } from './refresh-request.js';
export type { RefreshLifetimes } from './lifetimes.js';

/** Tests pass shorter timings (Partial<RefreshTiming>); a deployment always runs on REFRESH_TIMING. */
export interface RefreshServiceOptions extends Partial<RefreshTiming> {
  readonly store: Store;
  /** The bridge's namespace (namespaceOf): every record and every seal is bound to it. */
  readonly namespace: string;
  /** 32 bytes: parseRefreshKey() of the provider's Refresh Key credential. */
  readonly key: Buffer;
  readonly lifetimes: RefreshLifetimes;
  readonly upstream: UpstreamRefresher;
  readonly audit: RefreshAuditSink;
  readonly logger: Logger;
  /**
   * Whether the endpoint a session is bound to (by its resource) still exists and admits the
   * freshly verified identity. false ends the session (a policy failure). Default: always true.
   */
  readonly admits?: ((resource: string, identity: SignedInIdentity) => boolean) | undefined;
  /** Tests only: a fake clock. */
  readonly now?: (() => number) | undefined;
}

/** The signed-in user and client a session is for: what the code exchange took from its code. */
export interface SessionGrant {
  readonly clientId: string;
  readonly client: string;
  readonly resource: string;
  readonly scope: readonly string[];
  readonly identity: SignedInIdentity;
}

export interface StartedSession {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly scope: string[];
  /** The 12-character label (AccessGrant.session, audit `session`). */
  readonly session: string;
  /** The session's storage id, for revokeSession (a replayed code); not a credential. */
  readonly sessionId: string;
  /** Absent when the provider sent no refresh credential: the session cannot be refreshed. */
  readonly refreshToken?: string;
}

export type RefreshedTokens = RotatedTokens;

export interface RefreshService {
  /** At the code exchange, when the client asked for offline_access and refresh is configured. */
  startSession(grant: SessionGrant, upstreamRefreshToken: string | undefined): Promise<StartedSession>;
  /**
   * grant_type=refresh_token. Every refusal is an OAuthFailure: invalid_request, invalid_grant
   * (ending the session where the specification says so), invalid_scope, or 503
   * temporarily_unavailable with Retry-After (session kept). Never throws anything else.
   */
  refresh(request: RefreshRequest): Promise<RefreshedTokens>;
  /**
   * RFC 7009: ends the session of any of its refresh tokens and says whose it was (for the audit
   * line). Unknown tokens, or another client's, are ignored (undefined).
   */
  revokeRefreshToken(token: string, clientId?: string): Promise<RevokedSession | undefined>;
  /** Ends a session by its id (StartedSession.sessionId) with its access tokens, audited as revoked for `reason`. */
  revokeSession(sessionId: string, reason: string): Promise<RevokedSession | undefined>;
  /**
   * The provider's refresh token sealed (AES-GCM under the refresh key, which storage never holds)
   * for the sign-in and code records between callback and code exchange, so storage never holds it
   * in clear. `binding` is a random label stored beside it; the key is what protects it.
   */
  sealUpstreamForCode(upstreamRefreshToken: string, binding: string): string;
  /** The code exchange's side: undefined when the value does not open (fails closed). */
  openUpstreamForCode(sealed: string | undefined, binding: string): string | undefined;
}

export function createRefreshService(options: RefreshServiceOptions): RefreshService {
  const lifetimes = parseRefreshLifetimes(options.lifetimes);
  const now = options.now ?? Date.now;
  const box = createCryptoBox(options.key);
  const timing = {
    graceMs: positive(options.graceMs, REFRESH_TIMING.graceMs),
    pollIntervalMs: positive(options.pollIntervalMs, REFRESH_TIMING.pollIntervalMs),
    pollTimeoutMs: positive(options.pollTimeoutMs, REFRESH_TIMING.pollTimeoutMs),
    claimDeadlineMs: positive(options.claimDeadlineMs, REFRESH_TIMING.claimDeadlineMs),
    handBackRetryMs: positive(options.handBackRetryMs, REFRESH_TIMING.handBackRetryMs),
  };
  const { logger } = options;
  const ctx: RefreshContext = {
    store: options.store,
    namespace: options.namespace,
    sessions: new SessionStore(options.store, options.namespace, now),
    grace: new GraceCache(options.store, options.namespace, box, now),
    box,
    lifetimes,
    upstream: options.upstream,
    logger,
    timing,
    now,
    admits: options.admits ?? (() => true),
    audit(outcome: RefreshOutcome, about: AuditSubject, reason?: string) {
      try {
        options.audit({ event: 'oauth.refresh', outcome, ...about, ...(reason ? { reason } : {}) });
      } catch {
        logger.warn('the refresh audit sink threw');
      }
    },
  };
  let warnedNoUpstreamToken = false;

  async function startSession(grant: SessionGrant, upstreamRefreshToken: string | undefined): Promise<StartedSession> {
    const at = now();
    const session = randomBytes(16).toString('base64url');
    const label = sessionLabel(session);
    const absoluteExpiresAt = at + lifetimes.absoluteSeconds * 1000;
    const inactivityExpiresAt = Math.min(absoluteExpiresAt, at + lifetimes.inactivitySeconds * 1000);
    const scope = [...grant.scope];
    const identity: SignedInIdentity = {
      subject: grant.identity.subject,
      ...(grant.identity.email === undefined ? {} : { email: grant.identity.email }),
      groups: [...grant.identity.groups],
    };
    const expiresIn = accessLifetimeSeconds(lifetimes.accessSeconds, at, inactivityExpiresAt);
    const access = await issueAccessToken(ctx.store, ctx.namespace, { clientId: grant.clientId, client: grant.client, resource: grant.resource, scope, identity, session: label }, expiresIn, at);
    if (typeof upstreamRefreshToken !== 'string' || upstreamRefreshToken === '') {
      // Every rotation must be confirmed by the provider; without its credential there is nothing to confirm with.
      if (!warnedNoUpstreamToken) logger.warn('the identity provider sent no refresh token (is offline_access granted?); clients get no refresh token');
      warnedNoUpstreamToken = true;
      return { accessToken: access.accessToken, expiresIn, scope, session: label, sessionId: session };
    }
    const refreshToken = newOpaqueToken();
    const current = sha256(refreshToken);
    const record: SessionRecord = {
      version: 1,
      clientId: grant.clientId,
      client: grant.client,
      resource: grant.resource,
      scope,
      identity,
      createdAt: at,
      absoluteExpiresAt,
      inactivityExpiresAt,
      generation: 0,
      current,
      upstream: box.seal('upstream', [ctx.namespace, session], upstreamRefreshToken),
      accessTokens: [{ hash: access.hash, expiresAt: access.expiresAt }],
    };
    await ctx.sessions.create(session, record);
    await ctx.sessions.indexToken(current, { version: 1, session, generation: 0 }, absoluteExpiresAt);
    return { accessToken: access.accessToken, expiresIn, scope, session: label, sessionId: session, refreshToken };
  }

  async function refresh(request: RefreshRequest): Promise<RefreshedTokens> {
    const about: AuditSubject = {};
    try {
      return await refreshToken(request, about);
    } catch (error) {
      if (error instanceof OAuthFailure) throw error;
      if (isStorageUnavailable(error)) {
        logger.warn(`refresh: ${error.message}`);
        ctx.audit('transient', about, 'storage_unavailable');
        throw unavailable('storage_unavailable');
      }
      logger.error(`refresh failed: ${describeError(error)}`);
      ctx.audit('transient', about, 'internal_error');
      throw unavailable('internal_error');
    }
  }

  async function refreshToken(request: RefreshRequest, about: AuditSubject): Promise<RefreshedTokens> {
    const input = parseRefreshRequest(request);
    const index = input.plausible ? await ctx.sessions.findToken(input.tokenHash) : undefined;
    if (!index) {
      ctx.audit('unknown', about, 'token_unknown');
      throw unknownToken();
    }
    const session = index.session;
    const label = sessionLabel(session);
    about.session = label;
    const started = performance.now();
    const waitedTooLong = () => performance.now() - started >= timing.pollTimeoutMs;

    for (;;) {
      const loaded = await ctx.sessions.load(session);
      if (!loaded) {
        ctx.audit('unknown', about, 'session_ended');
        throw unknownToken();
      }
      const { raw, record } = loaded;
      about.subject = record.identity.subject;
      about.client = record.client;
      const at = now();
      if (sessionEndsAt(record) <= at) {
        await endSession(ctx, session, record);
        ctx.audit('unknown', about, 'session_expired');
        throw sessionEnded('session_expired');
      }
      if (input.clientId !== record.clientId) throw await revokeFor(ctx, session, record, about, 'revoked', 'client_mismatch');
      if (input.resource !== undefined && input.resource !== record.resource) {
        throw await revokeFor(ctx, session, record, about, 'revoked', 'resource_mismatch');
      }

      const inGrace = input.tokenHash === record.previous && record.rotatedAt !== undefined && at < record.rotatedAt + timing.graceMs;
      if (input.tokenHash !== record.current && !inGrace) {
        throw await revokeFor(ctx, session, record, about, 'replay', 'reuse_outside_grace');
      }
      const scope = effectiveScope(input.scope, record.scope);

      if (inGrace) return await replayWithinGrace(session, record, input.tokenHash, scope, about, at);

      if (isClaimLive(record.claim, at)) {
        // Another request is rotating this very token: its answer will appear as the grace response.
        if (waitedTooLong()) {
          ctx.audit('transient', about, 'rotation_in_progress');
          throw unavailable('rotation_in_progress', REFRESH_TIMING.busyRetryAfterSeconds);
        }
        await sleep(timing.pollIntervalMs);
        continue;
      }
      const takeover = record.claim !== undefined;
      const mine = claimed(record, newClaimOwner(), at, timing.claimDeadlineMs);
      let hold: { ok: boolean; raw: string };
      try {
        hold = await ctx.sessions.replace(session, raw, mine);
      } catch (error) {
        // The claim may be stored even so (a reply lost in a failover): give it back, or every
        // refresh of this session would wait for its deadline.
        await handBack(ctx, session, [mine]);
        throw error;
      }
      if (!hold.ok) {
        if (waitedTooLong()) {
          ctx.audit('transient', about, 'rotation_in_progress');
          throw unavailable('rotation_in_progress', REFRESH_TIMING.busyRetryAfterSeconds);
        }
        continue;
      }
      if (takeover) logger.warn(`refresh: took over a rotation whose worker did not finish within its deadline (session ${label})`);
      const result = await rotate(ctx, { session, label, about, tokenHash: input.tokenHash, scope, record: mine, raw: hold.raw });
      if (result !== LOST) return result;
    }
  }

  async function replayWithinGrace(
    session: string,
    record: SessionRecord,
    tokenHash: string,
    scope: string[],
    about: AuditSubject,
    at: number,
  ): Promise<RefreshedTokens> {
    const cached = record.rotatedBy === undefined ? undefined : await ctx.grace.read(session, tokenHash, record.rotatedBy);
    const expiresIn = cached ? Math.floor((cached.accessExpiresAt - at) / 1000) : 0;
    // Only the response of the committed rotation, for the same scope, while its access token lives.
    if (cached && expiresIn >= 1 && sha256(cached.refreshToken) === record.current && sameScope(cached.scope, scope)) {
      ctx.audit('grace_reuse', about);
      return { accessToken: cached.accessToken, refreshToken: cached.refreshToken, expiresIn, scope: [...cached.scope] };
    }
    throw await revokeFor(ctx, session, record, about, 'replay', cached ? 'grace_request_differs' : 'grace_response_missing');
  }

  async function revokeRefreshToken(token: string, clientId?: string): Promise<RevokedSession | undefined> {
    if (typeof token !== 'string' || token === '' || token.length > 512) return undefined;
    const index = await ctx.sessions.findToken(sha256(token));
    if (!index) return undefined;
    const loaded = await ctx.sessions.load(index.session);
    if (!loaded) return undefined;
    // RFC 7009 §2.1: a client may revoke only its own tokens; another's is treated as invalid.
    if (clientId !== undefined && clientId !== loaded.record.clientId) return undefined;
    await endSession(ctx, index.session, loaded.record);
    const ended: RevokedSession = { subject: loaded.record.identity.subject, client: loaded.record.client, session: sessionLabel(index.session) };
    ctx.audit('revoked', { ...ended }, 'client_revocation');
    return ended;
  }

  async function revokeSession(sessionId: string, reason: string): Promise<RevokedSession | undefined> {
    const loaded = await ctx.sessions.load(sessionId);
    if (!loaded) return undefined;
    await endSession(ctx, sessionId, loaded.record);
    const ended: RevokedSession = { subject: loaded.record.identity.subject, client: loaded.record.client, session: sessionLabel(sessionId) };
    ctx.audit('revoked', { ...ended }, reason);
    return ended;
  }

  function sealUpstreamForCode(upstreamRefreshToken: string, binding: string): string {
    return box.seal('code', [ctx.namespace, binding], upstreamRefreshToken);
  }

  function openUpstreamForCode(sealed: string | undefined, binding: string): string | undefined {
    if (typeof sealed !== 'string') return undefined;
    try {
      return box.open('code', [ctx.namespace, binding], sealed);
    } catch (error) {
      if (error instanceof SealError) return undefined;
      throw error;
    }
  }

  return Object.freeze({ startSession, refresh, revokeRefreshToken, revokeSession, sealUpstreamForCode, openUpstreamForCode });
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}
