import type { Logger } from '../../core/logger.js';
import type { Store } from '../../storage/store.js';
import type { SignedInIdentity } from '../identity.js';
import { endAccessGrant } from '../access-revocation.js';
import type { OAuthFailure } from '../oauth-error.js';
import type { UpstreamRefresher } from '../upstream/upstream-refresh.js';
import type { CryptoBox } from './crypto-box.js';
import type { GraceCache } from './grace-cache.js';
import type { RefreshLifetimes } from './lifetimes.js';
import type { RefreshOutcome } from './refresh-audit.js';
import { sessionEnded } from './refresh-failures.js';
import type { SessionRecord } from './session-records.js';
import type { SessionStore } from './session-store.js';

/** Who an audit line is about; filled in as soon as the session is known. */
export interface AuditSubject {
  subject?: string;
  client?: string;
  session?: string;
}

export interface RefreshTiming {
  readonly graceMs: number;
  readonly pollIntervalMs: number;
  readonly pollTimeoutMs: number;
  readonly claimDeadlineMs: number;
  readonly handBackRetryMs: number;
}

/** Everything the parts of one refresh service share; built once by createRefreshService. */
export interface RefreshContext {
  readonly store: Store;
  readonly namespace: string;
  readonly sessions: SessionStore;
  readonly grace: GraceCache;
  readonly box: CryptoBox;
  readonly lifetimes: RefreshLifetimes;
  readonly upstream: UpstreamRefresher;
  readonly logger: Logger;
  readonly timing: RefreshTiming;
  readonly now: () => number;
  readonly admits: (resource: string, identity: SignedInIdentity) => boolean;
  audit(outcome: RefreshOutcome, about: AuditSubject, reason?: string): void;
}

/**
 * Ends a session: its record (so every refresh token of it is refused from now on) and the access
 * tokens it still tracks. Token index records stay until they expire; they now lead nowhere.
 */
export async function endSession(ctx: RefreshContext, session: string, record: SessionRecord | undefined): Promise<void> {
  await ctx.sessions.remove(session);
  const now = ctx.now();
  const live = (record?.accessTokens ?? []).filter((token) => token.expiresAt > now);
  await Promise.all(live.map((token) => endAccessGrant(ctx.store, ctx.namespace, token.hash)));
}

/** Ends the session, writes the audit line, and returns the invalid_grant to throw. */
export async function revokeFor(
  ctx: RefreshContext,
  session: string,
  record: SessionRecord,
  about: AuditSubject,
  outcome: 'revoked' | 'replay',
  reason: string,
): Promise<OAuthFailure> {
  await endSession(ctx, session, record);
  ctx.audit(outcome, about, reason);
  return sessionEnded(reason);
}

/** Storage writes whose failure must not hide the error being reported (a rollback, a release). */
export async function bestEffort(operation: () => Promise<unknown>): Promise<void> {
  try {
    await operation();
  } catch {
    // The claim's deadline recovers whatever this could not undo.
  }
}
