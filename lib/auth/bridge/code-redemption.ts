import type { StoreKey } from '../../storage/store.js';
import { invalidGrant, OAuthFailure } from '../oauth-error.js';
import { verifierMatches } from '../pkce.js';
import { REFRESH_KINDS } from '../refresh/session-records.js';
import { sha256 } from '../secrets.js';
import { endAccessGrant } from '../access-revocation.js';
import { SIGN_IN_TTL_SECONDS, type BridgeContext } from './bridge-context.js';
import { decodeRecord, encodeRecord, RECORD_KINDS, type IssuedCode } from '../sign-in-records.js';

/** What the token endpoint was given: the code and what must match the authorization request. */
export interface CodePresentation {
  readonly code: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly verifier: string;
  readonly resource?: string;
}

/** What a redemption issued, by storage id only: enough to revoke it, nothing that grants access. */
export interface IssuedFromCode {
  /** SHA-256 of the access token (its storage id). */
  readonly accessToken: string;
  /** The refresh session started, when the client got a refresh token. */
  readonly session?: string;
}

/**
 * A code's record once redeemed, kept as long as the code could have lived, so a second use is
 * recognised (OAuth 2.1 §4.1.3) and can revoke what the first one got.
 */
interface SpentCode {
  readonly spent: true;
  readonly subject: string;
  readonly client: string;
  readonly issuedFrom?: IssuedFromCode;
}

const CODE_UNKNOWN = 'The authorization code is invalid, expired or already used.';

/**
 * Redeems a one-time code so that a storage failure never costs the client its code, and a second
 * use revokes what the first one got:
 * 1. read the code: a failure here changes nothing;
 * 2. check it and `issue` the tokens: a failure leaves only tokens nobody was given;
 * 3. swap the code for a spent record naming what was issued, by compare-and-set. When that swap
 *    fails (a Redis that hangs answers nothing, though it may still apply the swap later), its undo
 *    is sent right behind it on the same connection: once storage answers again the code is back
 *    as it was and the tokens are gone, and the client's retry works.
 * A code presented by the wrong client, with the wrong redirect URI, verifier or resource is spent
 * (nothing was issued from it). Failures are OAuthFailures carrying `about` for the audit line;
 * storage failures reject with StorageUnavailableError (the caller answers 503).
 */
export async function redeemCode<T extends { readonly issuedFrom: IssuedFromCode }>(
  ctx: BridgeContext,
  presented: CodePresentation,
  issue: (issued: IssuedCode) => Promise<T>,
): Promise<{ issued: IssuedCode; tokens: T }> {
  const key: StoreKey = { namespace: ctx.namespace, kind: RECORD_KINDS.code, id: sha256(presented.code) };
  const raw = await ctx.store.get(key);
  const record = decodeRecord<IssuedCode | SpentCode>(raw);
  if (raw === undefined || record === undefined) throw invalidGrant(CODE_UNKNOWN, 'code_unknown');
  if ('spent' in record) {
    await revokeIssuedFrom(ctx, record.issuedFrom);
    throw about(invalidGrant(CODE_UNKNOWN, 'code_replay'), record);
  }

  const issued = record;
  const mismatch = checkPresentation(issued, presented);
  if (mismatch) {
    await ctx.store.compareAndSet(key, raw, encodeRecord(spentRecord(issued)), SIGN_IN_TTL_SECONDS);
    throw about(mismatch, { subject: issued.identity.subject, client: issued.client });
  }

  const tokens = await issue(issued);
  const spent = encodeRecord(spentRecord(issued, tokens.issuedFrom));
  let swapped: boolean;
  try {
    swapped = await ctx.store.compareAndSet(key, raw, spent, SIGN_IN_TTL_SECONDS);
  } catch (error) {
    undoQuietly(ctx, key, spent, raw, issued, tokens.issuedFrom);
    throw error;
  }
  if (!swapped) {
    // Another request redeemed the code between our read and our swap: two uses, so neither keeps anything.
    await deleteIssued(ctx, tokens.issuedFrom);
    const now = decodeRecord<IssuedCode | SpentCode>(await ctx.store.get(key));
    if (now !== undefined && 'spent' in now) await revokeIssuedFrom(ctx, now.issuedFrom);
    throw about(invalidGrant(CODE_UNKNOWN, 'code_replay'), { subject: issued.identity.subject, client: issued.client });
  }
  return { issued, tokens };
}

function checkPresentation(issued: IssuedCode, presented: CodePresentation): OAuthFailure | undefined {
  if (issued.clientId !== presented.clientId) return invalidGrant('The authorization code was issued to another client.', 'client_mismatch');
  if (issued.redirectUri !== presented.redirectUri) return invalidGrant('redirect_uri does not match the authorization request.', 'redirect_mismatch');
  if (!verifierMatches(presented.verifier, issued.codeChallenge)) return invalidGrant('code_verifier does not match the code_challenge.', 'verifier_mismatch');
  // Codex omits `resource` here; the code already carries the one bound at /authorize.
  if (presented.resource !== undefined && presented.resource !== issued.resource) {
    const failure = new OAuthFailure(400, 'invalid_target', 'resource does not match the authorization request.');
    failure.reason = 'resource_mismatch';
    return failure;
  }
  return undefined;
}

function spentRecord(issued: IssuedCode, issuedFrom?: IssuedFromCode): SpentCode {
  return { spent: true, subject: issued.identity.subject, client: issued.client, ...(issuedFrom ? { issuedFrom } : {}) };
}

function about(failure: OAuthFailure, who: { subject: string; client: string }): OAuthFailure {
  failure.about = { subject: who.subject, client: who.client };
  return failure;
}

/** A replay: the session (with every access token it issued since) ends, and the first access token goes. */
async function revokeIssuedFrom(ctx: BridgeContext, issuedFrom: IssuedFromCode | undefined): Promise<void> {
  if (!issuedFrom) return;
  if (issuedFrom.session && ctx.refresh) await ctx.refresh.revokeSession(issuedFrom.session, 'code_replay');
  await deleteIssued(ctx, issuedFrom);
}

/** Tokens just issued and never handed out: plain deletes, which a hung Redis applies in order later. */
async function deleteIssued(ctx: BridgeContext, issuedFrom: IssuedFromCode): Promise<void> {
  // Both sent at once: while storage hangs, waiting for the first reply would never send the second.
  await Promise.all([
    endAccessGrant(ctx.store, ctx.namespace, issuedFrom.accessToken),
    ...(issuedFrom.session ? [ctx.store.delete({ namespace: ctx.namespace, kind: REFRESH_KINDS.session, id: issuedFrom.session })] : []),
  ]);
}

/**
 * Puts the code back (only if the failed swap did land) and removes the tokens of the failed
 * attempt. Not awaited: the commands only need to be sent behind the swap, which they are now; their
 * replies may never come while storage hangs.
 */
function undoQuietly(ctx: BridgeContext, key: StoreKey, spent: string, raw: string, issued: IssuedCode, issuedFrom: IssuedFromCode): void {
  const secondsLeft = issued.expiresAt === undefined ? SIGN_IN_TTL_SECONDS : Math.ceil((issued.expiresAt - Date.now()) / 1000);
  const undo = Promise.allSettled([
    secondsLeft >= 1 ? ctx.store.compareAndSet(key, spent, raw, secondsLeft) : ctx.store.delete(key),
    deleteIssued(ctx, issuedFrom),
  ]);
  void undo.then((results) => {
    if (results.some((result) => result.status === 'rejected')) ctx.logger.debug('a failed code exchange could not be undone yet; it applies when storage answers');
  });
}
