import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { sendJson } from '../../http/responses.js';
import { readForm } from '../../http/read-form.js';
import { formFailure, invalidClient, invalidRequest, OAuthFailure, sendOAuthFailure, temporarilyUnavailable } from '../oauth-error.js';
import { isRegisteredClientId, UnknownRegisteredClient } from '../registration/registered-clients.js';
import { isValidVerifier } from '../pkce.js';
import { sessionLabel, sha256 } from '../secrets.js';
import { issueAccessToken } from '../refresh/access-tokens.js';
import type { RefreshService } from '../refresh/refresh-service.js';
import { OFFLINE_ACCESS, type BridgeContext } from './bridge-context.js';
import { redeemCode, type IssuedFromCode } from './code-redemption.js';
import type { IssuedCode } from '../sign-in-records.js';

/**
 * POST /oauth/<slug>/token. Public clients only (PKCE instead of a secret). A code works once: a
 * second use is refused and revokes what the first one got; a code presented by the wrong client is
 * spent; a storage failure answers 503 and leaves the code for the retry (see redeemCode).
 */
export function createTokenHandler(ctx: BridgeContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let grantType: string | undefined;
    try {
      const form = await readTokenForm(req);
      grantType = form.get('grant_type');
      if (grantType === 'authorization_code') return await exchangeCode(ctx, form, res);
      if (grantType === 'refresh_token' && ctx.refresh) return await refreshTokens(ctx, ctx.refresh, form, res);
      throw new OAuthFailure(
        400,
        'unsupported_grant_type',
        ctx.refresh ? 'Supported grant types: authorization_code, refresh_token.' : 'Only grant_type=authorization_code is supported.',
      );
    } catch (error) {
      if (error instanceof OAuthFailure) {
        // The refresh service writes its own oauth.refresh lines.
        if (error.error !== 'temporarily_unavailable' && grantType !== 'refresh_token') {
          ctx.audit({ event: 'oauth.token', outcome: 'refused', reason: error.reason ?? error.error, ...error.about });
        }
        return sendOAuthFailure(res, error);
      }
      ctx.requestLog.error('token_storage', `token request failed: ${error instanceof Error ? error.message : 'storage error'}`);
      sendOAuthFailure(res, temporarilyUnavailable());
    }
  };
}

async function exchangeCode(ctx: BridgeContext, form: Map<string, string>, res: ServerResponse): Promise<void> {
  const code = form.get('code');
  const redirectUri = form.get('redirect_uri');
  const clientId = form.get('client_id');
  const verifier = form.get('code_verifier');
  if (!code || !redirectUri || !clientId) throw invalidRequest('code, redirect_uri and client_id are required.');
  if (!isValidVerifier(verifier)) throw invalidRequest('code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~');

  await ensureStillRegistered(ctx, clientId);
  const resource = form.get('resource');
  const presented = { code, clientId, redirectUri, verifier, ...(resource !== undefined ? { resource } : {}) };
  const { issued, tokens } = await redeemCode(ctx, presented, (issued) => issueTokens(ctx, issued));
  ctx.audit({ event: 'oauth.token', outcome: 'success', subject: issued.identity.subject, client: issued.client, session: tokens.session });
  sendJson(res, 200, tokens.answer, { pragma: 'no-cache' });
}

interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

/** The tokens for a checked code: a refresh session when offline_access was granted, else one access token. */
async function issueTokens(ctx: BridgeContext, issued: IssuedCode): Promise<{ answer: TokenResponse; session: string; issuedFrom: IssuedFromCode }> {
  const grant = { clientId: issued.clientId, client: issued.client, resource: issued.resource, scope: issued.scope, identity: issued.identity };
  if (ctx.refresh && issued.scope.includes(OFFLINE_ACCESS)) {
    const upstreamRefreshToken = issued.upstreamRefresh ? ctx.refresh.openUpstreamForCode(issued.upstreamRefresh.sealed, issued.upstreamRefresh.binding) : undefined;
    const started = await ctx.refresh.startSession(grant, upstreamRefreshToken);
    return {
      answer: {
        access_token: started.accessToken,
        token_type: 'Bearer',
        expires_in: started.expiresIn,
        scope: started.scope.join(' '),
        ...(started.refreshToken ? { refresh_token: started.refreshToken } : {}),
      },
      session: started.session,
      issuedFrom: { accessToken: sha256(started.accessToken), ...(started.refreshToken ? { session: started.sessionId } : {}) },
    };
  }
  const session = sessionLabel(randomBytes(16).toString('base64url'));
  const { accessToken, expiresIn, hash } = await issueAccessToken(ctx.store, ctx.namespace, { ...grant, session }, ctx.accessTokenTtlSeconds);
  return {
    answer: { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope: issued.scope.join(' ') },
    session,
    issuedFrom: { accessToken: hash },
  };
}

/** grant_type=refresh_token: rotation, reuse detection and the provider check live in the refresh service. */
async function refreshTokens(ctx: BridgeContext, refresh: RefreshService, form: Map<string, string>, res: ServerResponse): Promise<void> {
  const clientId = form.get('client_id') ?? '';
  await ensureStillRegistered(ctx, clientId);
  const refreshed = await refresh.refresh({
    refreshToken: form.get('refresh_token') ?? '',
    clientId,
    ...(form.has('resource') ? { resource: form.get('resource')! } : {}),
    ...(form.has('scope') ? { scope: form.get('scope')! } : {}),
  });
  sendJson(
    res,
    200,
    { access_token: refreshed.accessToken, token_type: 'Bearer', expires_in: refreshed.expiresIn, refresh_token: refreshed.refreshToken, scope: refreshed.scope.join(' ') },
    { pragma: 'no-cache' },
  );
}

async function readTokenForm(req: IncomingMessage): Promise<Map<string, string>> {
  const form = await readForm(req);
  if (typeof form === 'string') throw formFailure(form, 'token');
  return form;
}

/**
 * A registered client must still be registered (401 invalid_client tells it to register again);
 * resolving it also keeps its registration alive. Metadata-document clients need no lookup here.
 */
async function ensureStillRegistered(ctx: BridgeContext, clientId: string): Promise<void> {
  if (!isRegisteredClientId(clientId)) return;
  try {
    await ctx.clients.resolve(clientId);
  } catch (error) {
    if (error instanceof UnknownRegisteredClient) throw invalidClient(error.description);
    throw error;
  }
}
