import type { Store } from '../../storage/store.js';
import { RECORD_KINDS, encodeRecord, type AccessGrant } from '../sign-in-records.js';
import { newOpaqueToken, sha256 } from '../secrets.js';

export interface IssuedAccessToken {
  readonly accessToken: string;
  /** Seconds, as the token response's `expires_in`. */
  readonly expiresIn: number;
  readonly expiresAt: number;
  /** The storage id (SHA-256), for revoking it with its session. */
  readonly hash: string;
}

/**
 * Seconds an access token issued now may live: the configured lifetime, cut to what remains of the
 * session (`sessionEndsAt`, epoch ms) when there is one. 0 means the session has no time left.
 */
export function accessLifetimeSeconds(lifetimeSeconds: number, now: number, sessionEndsAt?: number): number {
  if (sessionEndsAt === undefined) return lifetimeSeconds;
  return Math.max(0, Math.min(lifetimeSeconds, Math.floor((sessionEndsAt - now) / 1000)));
}

/**
 * The one writer of access token records, shared by the code exchange and the refresh grant so both
 * store the same AccessGrant under kind `access`, keyed by the token's SHA-256, for exactly
 * `expiresInSeconds` (a whole number >= 1, already capped by the caller).
 */
export async function issueAccessToken(
  store: Store,
  namespace: string,
  grant: Omit<AccessGrant, 'expiresAt'>,
  expiresInSeconds: number,
  now: number = Date.now(),
): Promise<IssuedAccessToken> {
  if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds < 1) throw new Error('an access token needs a lifetime of at least one second');
  const accessToken = newOpaqueToken();
  const hash = sha256(accessToken);
  const expiresAt = now + expiresInSeconds * 1000;
  const record: AccessGrant = {
    clientId: grant.clientId,
    client: grant.client,
    resource: grant.resource,
    scope: [...grant.scope],
    identity: identityOf(grant.identity),
    session: grant.session,
    expiresAt,
  };
  await store.put({ namespace, kind: RECORD_KINDS.access, id: hash }, encodeRecord(record), expiresInSeconds);
  return { accessToken, expiresIn: expiresInSeconds, expiresAt, hash };
}

/** Only what the bearer check and msg.mcp use: an upstream identity may carry more (a name). */
function identityOf(identity: AccessGrant['identity']): AccessGrant['identity'] {
  return {
    subject: identity.subject,
    ...(identity.email === undefined ? {} : { email: identity.email }),
    groups: [...identity.groups],
  };
}
