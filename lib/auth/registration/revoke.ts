import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/logger.js';
import { isStorageUnavailable, type Store } from '../../storage/store.js';
import { decodeRecord, RECORD_KINDS, type AccessGrant } from '../sign-in-records.js';
import { readForm } from '../../http/read-form.js';
import { formFailure, invalidRequest, OAuthFailure, sendOAuthFailure, temporarilyUnavailable } from '../oauth-error.js';
import { sha256 } from '../secrets.js';
import { endAccessGrant } from '../access-revocation.js';
import type { RevocationAuditEvent } from './registration-audit.js';

/** Whose session a revoked refresh token ended, for the audit line. */
export interface RevokedSession {
  readonly subject: string;
  /** The client label (as in msg.mcp.client), not the client_id. */
  readonly client: string;
  /** The 12-character session label. */
  readonly session: string;
}

/**
 * Revokes a refresh token for `clientId` (ending its session). Resolves with whose session ended
 * when a token of that client was found and revoked; undefined when there was none. Should reject
 * with StorageUnavailableError (or an OAuthFailure to send as is) when it could not decide.
 */
export type RevokeRefreshToken = (token: string, clientId: string) => Promise<RevokedSession | undefined>;

export interface RevocationContext {
  readonly store: Store;
  readonly namespace: string;
  /** Supplied once refresh tokens exist; without it only access tokens can be revoked. */
  readonly revokeRefreshToken?: RevokeRefreshToken;
  readonly logger: Logger;
  readonly audit: (event: RevocationAuditEvent) => void;
}

type Outcome = 'revoked' | 'mismatch' | 'absent';

/**
 * POST /oauth/<slug>/revoke (RFC 7009). Public clients identify themselves with `client_id` (there
 * is no secret to authenticate with), and only that client's tokens are revoked. Whatever the token
 * turns out to be (unknown, expired, another client's, already revoked) the answer is the same empty
 * 200 (RFC 7009 §2.2), so the endpoint is no oracle for which tokens are alive. `token_type_hint`
 * only decides which kind is looked for first (§2.1); an unknown hint is ignored.
 *
 * Revocation ends tokens, never the user's remembered consent: clients revoke their old tokens
 * routinely (Claude Code on every `claude mcp login`), and the approval is the user's to withdraw
 * (the consent page's Deny, or the admin route of the mcp-auth node).
 *
 * 400 `invalid_request` for a missing `token` or `client_id`, a repeated parameter or a body that is
 * not a form; 413 over 16 KiB; 405 for other methods; 503 `temporarily_unavailable` when storage
 * (or the refresh service) cannot answer, since then nothing is known to be revoked.
 */
export function createRevocationHandler(ctx: RevocationContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    try {
      const form = await readRevocationForm(req);
      const token = form.get('token');
      const clientId = form.get('client_id');
      if (!token) throw invalidRequest('token is required.');
      if (!clientId) throw invalidRequest('client_id is required: public clients identify themselves with it.');

      const refreshFirst = form.get('token_type_hint') === 'refresh_token';
      let outcome: Outcome = refreshFirst ? await revokeRefresh(ctx, token, clientId) : await revokeAccess(ctx, token, clientId);
      if (outcome === 'absent') {
        outcome = refreshFirst ? await revokeAccess(ctx, token, clientId) : await revokeRefresh(ctx, token, clientId);
      }
      if (outcome === 'absent') ctx.audit({ event: 'oauth.revoke', outcome: 'not_found' });
      res.writeHead(200, { 'cache-control': 'no-store', pragma: 'no-cache', 'content-length': '0' });
      res.end();
    } catch (error) {
      if (error instanceof OAuthFailure) {
        if (error.error !== 'temporarily_unavailable') ctx.audit({ event: 'oauth.revoke', outcome: 'refused', reason: error.error });
        return sendOAuthFailure(res, error);
      }
      ctx.logger.error(`token revocation failed: ${isStorageUnavailable(error) ? error.message : 'storage error'}`);
      sendOAuthFailure(res, temporarilyUnavailable());
    }
  };
}

async function revokeAccess(ctx: RevocationContext, token: string, clientId: string): Promise<Outcome> {
  const key = { namespace: ctx.namespace, kind: RECORD_KINDS.access, id: sha256(token) };
  const grant = decodeRecord<AccessGrant>(await ctx.store.get(key));
  if (grant === undefined) return 'absent';
  if (grant.clientId !== clientId) {
    ctx.audit({ event: 'oauth.revoke', outcome: 'not_found', reason: 'client_mismatch', tokenType: 'access_token', subject: grant.identity.subject, client: grant.client });
    return 'mismatch';
  }
  await endAccessGrant(ctx.store, ctx.namespace, key.id);
  ctx.audit({
    event: 'oauth.revoke',
    outcome: 'revoked',
    tokenType: 'access_token',
    subject: grant.identity.subject,
    client: grant.client,
    session: grant.session,
  });
  return 'revoked';
}

async function revokeRefresh(ctx: RevocationContext, token: string, clientId: string): Promise<Outcome> {
  if (!ctx.revokeRefreshToken) return 'absent';
  const ended = await ctx.revokeRefreshToken(token, clientId);
  if (ended === undefined) return 'absent';
  ctx.audit({ event: 'oauth.revoke', outcome: 'revoked', tokenType: 'refresh_token', subject: ended.subject, client: ended.client, session: ended.session });
  return 'revoked';
}

async function readRevocationForm(req: IncomingMessage): Promise<Map<string, string>> {
  const form = await readForm(req);
  if (typeof form === 'string') throw formFailure(form, 'revocation');
  return form;
}
