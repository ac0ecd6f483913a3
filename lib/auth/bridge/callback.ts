import type { IncomingMessage, ServerResponse } from 'node:http';
import { StorageUnavailableError } from '../../storage/store.js';
import { clientLabel } from '../client-label.js';
import { invalidRequest, sendOAuthFailure, temporarilyUnavailable } from '../oauth-error.js';
import type { ConsentRequest } from '../consent/consent-types.js';
import { constantTimeEqual, sha256 } from '../secrets.js';
import { randomBytes } from 'node:crypto';
import type { RefreshService } from '../refresh/refresh-service.js';
import { OFFLINE_ACCESS, type BridgeContext, type FinishedSignIn } from './bridge-context.js';
import type { SignedInIdentity } from '../identity.js';
import { clearCookie, cookieName, readCookie } from '../../http/cookies.js';
import { issueCodeAndRedirect } from './issue-code.js';
import { decodeRecord, RECORD_KINDS, type IssuedCode, type PendingSignIn } from '../sign-in-records.js';
import { sendAuthorizationError } from './redirects.js';

/** Provider error codes passed through to the client as they are; anything else becomes access_denied. */
const RELAYED_ERRORS = new Set(['access_denied', 'temporarily_unavailable', 'server_error', 'login_required', 'consent_required', 'interaction_required']);

/**
 * GET /oauth/<slug>/callback: the provider's answer. Checks that the same browser started this
 * sign-in, lets the upstream client verify the code and ID token, checks the endpoint's groups, and
 * sends the client a one-time code with `iss` (RFC 9207).
 */
export function createCallbackHandler(ctx: BridgeContext, secureCookies: boolean) {
  // Lax: the provider's redirect back is a top-level navigation from another site.
  const cookieOptions = { sameSite: 'Lax', secure: secureCookies } as const;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', ctx.issuer);
    const state = url.searchParams.get('state');
    if (!state) return sendOAuthFailure(res, invalidRequest('state is missing.'));
    // One cookie per sign-in (named after its state), so two sign-ins in one browser stay apart.
    const cookie = cookieName('signin', ctx.slug, state, secureCookies);
    const binding = readCookie(req, cookie);
    if (!binding) {
      return sendOAuthFailure(res, invalidRequest('Sign-in must finish in the browser that started it (the sign-in cookie is missing).'));
    }

    let pending: PendingSignIn | undefined;
    try {
      pending = decodeRecord<PendingSignIn>(await ctx.store.take({ namespace: ctx.namespace, kind: RECORD_KINDS.pending, id: sha256(state) }));
    } catch (error) {
      return storageFailure(ctx, res, error);
    }
    clearCookie(res, cookie, cookieOptions);
    if (!pending) return sendOAuthFailure(res, invalidRequest('This sign-in is unknown, expired or already finished; start again from the client.'));
    if (!constantTimeEqual(sha256(binding), pending.browserBinding)) {
      return sendOAuthFailure(res, invalidRequest('Sign-in must finish in the browser that started it.'));
    }

    const client = clientLabel(pending.clientId, pending.clientName);
    const endpoint = ctx.endpointForResource(pending.resource);
    const refuse = (error: string, description: string, reason: string, subject?: string) => {
      ctx.audit({ event: 'oauth.sign_in', outcome: 'refused', reason, client, endpoint: endpoint?.path, ...(subject ? { subject } : {}) });
      sendAuthorizationError(res, pending, ctx.issuer, error, description, pending.clientState);
    };

    const providerError = url.searchParams.get('error');
    if (providerError) {
      const relayed = RELAYED_ERRORS.has(providerError) ? providerError : 'access_denied';
      return refuse(relayed, 'The identity provider did not complete the sign-in.', `provider_${relayed}`);
    }
    if (!endpoint) return refuse('invalid_target', 'The MCP endpoint is no longer served.', 'endpoint_gone');

    let identity: SignedInIdentity & { readonly upstreamRefreshToken?: string };
    try {
      // The provider's refresh token is needed only when this client will get refresh tokens too.
      const wantsRefresh = ctx.refresh !== undefined && pending.scope.includes(OFFLINE_ACCESS);
      identity = await ctx.upstream.completeSignIn(url, pending.upstream, { includeRefreshToken: wantsRefresh });
    } catch (error) {
      const reason = (error as { reason?: string }).reason ?? 'invalid_response';
      if (reason === 'provider_config') ctx.requestLog.error('provider_config', 'the identity provider refused the bridge\'s client configuration (provider_config): check the client ID, secret and redirect URI registered there');
      if (reason === 'unavailable' || reason === 'provider_config') {
        return refuse('temporarily_unavailable', 'The identity provider is unavailable; try again shortly.', reason);
      }
      return refuse('access_denied', 'The identity provider\'s answer could not be verified.', reason);
    }
    if (!endpoint.groups.some((group) => identity.groups.includes(group))) {
      return refuse('access_denied', 'Your account is not in a group allowed on this MCP endpoint.', 'not_in_groups', identity.subject);
    }

    // Scopes issued by group go only to their members; the token answer names what was granted.
    const scope = [...ctx.scopeGrants.allowed(pending.scope, identity.groups)];
    if (scope.length < pending.scope.length) {
      ctx.audit({ event: 'oauth.sign_in', outcome: 'narrowed', reason: 'scope_not_in_groups', client, endpoint: endpoint.path, subject: identity.subject, scopes: pending.scope.filter((item) => !scope.includes(item)).join(' ') });
    }
    const issued: IssuedCode = {
      clientId: pending.clientId,
      client,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      resource: pending.resource,
      scope,
      identity: { subject: identity.subject, ...(identity.email ? { email: identity.email } : {}), groups: identity.groups },
      ...(ctx.refresh && identity.upstreamRefreshToken ? { upstreamRefresh: sealUpstream(ctx.refresh, identity.upstreamRefreshToken) } : {}),
    };
    const finished: FinishedSignIn = {
      issued,
      endpointPath: endpoint.path,
      redirectTrusted: pending.redirectTrusted === true,
      ...(pending.clientState !== undefined ? { clientState: pending.clientState } : {}),
    };
    // One upstream client serves every MCP client, so the user approves each client once.
    const request: ConsentRequest = {
      clientId: pending.clientId,
      ...(pending.clientName ? { clientName: pending.clientName } : {}),
      registeredClient: pending.registeredClient === true,
      redirectUri: pending.redirectUri,
      endpointPath: endpoint.path,
      endpointName: endpoint.serverName,
      scope,
      subject: identity.subject,
      ...(identity.email ? { email: identity.email } : {}),
    };
    try {
      if (!(await ctx.consent.alreadyApproved(request))) return await ctx.consent.prompt(res, request, finished);
    } catch {
      ctx.requestLog.error('consent_storage', 'consent state could not be read or stored: storage unavailable');
      return refuse('temporarily_unavailable', 'Sign-in is temporarily unavailable; try again shortly.', 'storage_unavailable', identity.subject);
    }
    await issueCodeAndRedirect(ctx, res, finished);
  };
}

function storageFailure(ctx: BridgeContext, res: ServerResponse, error: unknown): void {
  const message = error instanceof StorageUnavailableError ? error.message : 'storage error';
  ctx.requestLog.error('callback_storage', `sign-in state could not be read: ${message}`);
  sendOAuthFailure(res, temporarilyUnavailable());
}

/** Seals the provider's refresh token to a random binding kept beside it in the code record. */
function sealUpstream(refresh: RefreshService, upstreamRefreshToken: string): { sealed: string; binding: string } {
  const binding = randomBytes(16).toString('base64url');
  return { sealed: refresh.sealUpstreamForCode(upstreamRefreshToken, binding), binding };
}
