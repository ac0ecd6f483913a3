import type { IncomingMessage, ServerResponse } from 'node:http';
import { StorageUnavailableError } from '../../storage/store.js';
import { invalidClient, invalidRequest, OAuthFailure, temporarilyUnavailable } from '../oauth-error.js';
import { sendClientProblemPage } from '../pages/client-problem-page.js';
import type { ClientProblem } from '../pages/page-texts.js';
import { UnknownRegisteredClient } from '../registration/registered-clients.js';
import { isValidChallenge } from '../pkce.js';
import { newOpaqueToken, sha256 } from '../secrets.js';
import { SIGN_IN_TTL_SECONDS, type BridgeContext } from './bridge-context.js';
import { ClientRejected } from '../clients/known-client.js';
import { cookieName, setCookie } from '../../http/cookies.js';
import { encodeRecord, RECORD_KINDS, type PendingSignIn } from '../sign-in-records.js';
import { singleParams } from '../../http/read-form.js';
import { sendAuthorizationError } from './redirects.js';

/**
 * GET /oauth/<slug>/authorize. Until the client and its redirect URI are verified, errors are shown
 * here on a page in the browser's language (never redirected: an unverified redirect URI is an open
 * redirector, and a client cannot read this answer anyway); after that they go back
 * to the client if its redirect URI is trusted, and are still shown here if not (a registered
 * client's https redirect anywhere). On success the browser continues to the upstream provider's login.
 */
export function createAuthorizeHandler(ctx: BridgeContext, secureCookies: boolean) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Until the client and its redirect URI are verified, the person in the browser is told why.
    const refuse = (problem: ClientProblem, failure: OAuthFailure, clientId?: string) => sendClientProblemPage(req, res, ctx.pages, problem, failure, clientId);
    if (req.method !== 'GET') return refuse('request', new OAuthFailure(405, 'invalid_request', 'Use GET for the authorization endpoint.', { allow: 'GET' }));
    const params = singleParams(new URL(req.url ?? '/', 'http://localhost').searchParams);
    if (params === 'repeated') return refuse('request', invalidRequest('A parameter was repeated.'));

    const clientId = params.get('client_id');
    const redirectUri = params.get('redirect_uri');
    if (!clientId) return refuse('request', invalidRequest('client_id is required.'));
    if (!redirectUri) return refuse('request', invalidRequest('redirect_uri is required.'), clientId);

    let client;
    try {
      client = await ctx.clients.resolve(clientId);
    } catch (error) {
      // 401 as at the token endpoint: the client's registration expired or never existed.
      if (error instanceof UnknownRegisteredClient) return refuse('unknownClient', invalidClient(error.description), clientId);
      if (error instanceof StorageUnavailableError) return refuse('unavailable', temporarilyUnavailable(), clientId);
      const description = error instanceof ClientRejected ? error.description : 'The client metadata document could not be used.';
      return refuse('clientRefused', new OAuthFailure(400, 'invalid_client', description), clientId);
    }
    if (!client.redirectUriAllowed(redirectUri)) {
      return refuse('redirectRefused', invalidRequest('redirect_uri is not registered in the client metadata document.'), clientId);
    }

    // The redirect URI is now the client's: further problems go back to it when it is trusted, and
    // are shown here when anyone could have registered it (an open redirect otherwise).
    const clientState = params.get('state');
    const redirectTrusted = client.redirectTrusted(redirectUri);
    const fail = (error: string, description: string) =>
      sendAuthorizationError(res, { redirectUri, redirectTrusted }, ctx.issuer, error, description, clientState);

    if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
    if (params.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'PKCE with code_challenge_method=S256 is required.');
    const codeChallenge = params.get('code_challenge');
    if (!isValidChallenge(codeChallenge)) return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256).');

    const requestedResource = params.get('resource');
    const endpoint = requestedResource ? ctx.endpointForResource(requestedResource) : ctx.soleEndpoint();
    if (!endpoint) {
      return fail('invalid_target', requestedResource ? 'resource is not an MCP endpoint protected by this server.' : 'resource is required: this server protects several endpoints.');
    }
    const scope = requestedScope(params.get('scope'), ctx.scopes, ctx.scopeGrants.scopes);

    try {
      const upstream = await ctx.upstream.beginSignIn();
      const binding = newOpaqueToken();
      const pending: PendingSignIn = {
        clientId,
        ...(client.clientName ? { clientName: client.clientName } : {}),
        ...(client.registered ? { registeredClient: true } : {}),
        redirectUri,
        redirectTrusted,
        codeChallenge,
        ...(clientState !== undefined ? { clientState } : {}),
        resource: endpoint.resource,
        scope,
        upstream: { state: upstream.state, nonce: upstream.nonce, codeVerifier: upstream.codeVerifier },
        browserBinding: sha256(binding),
      };
      await ctx.store.put({ namespace: ctx.namespace, kind: RECORD_KINDS.pending, id: sha256(upstream.state) }, encodeRecord(pending), SIGN_IN_TTL_SECONDS);
      setCookie(res, cookieName('signin', ctx.slug, upstream.state, secureCookies), binding, { sameSite: 'Lax', secure: secureCookies }, SIGN_IN_TTL_SECONDS);
      res.writeHead(302, { location: upstream.url, 'cache-control': 'no-store' });
      res.end();
    } catch (error) {
      if (error instanceof StorageUnavailableError) ctx.requestLog.error('sign_in_storage', `sign-in state could not be stored: ${error.message}`);
      else ctx.requestLog.warn('sign_in_provider', `the identity provider could not be reached to start a sign-in`);
      fail('temporarily_unavailable', 'Sign-in is temporarily unavailable; try again shortly.');
    }
  };
}

/**
 * Requested scopes the server knows; unknown ones are dropped (RFC 6749 §3.3). None known means the
 * sign-in's own: a scope issued by group is given only to a client that asks for it (step-up), and
 * only to a user in its groups (decided at the callback, once the user is known).
 */
export function requestedScope(requested: string | undefined, own: readonly string[], byGroup: readonly string[]): string[] {
  if (!requested) return [...own];
  const known = requested.split(' ').filter((scope) => own.includes(scope) || byGroup.includes(scope));
  return known.length > 0 ? [...new Set(known)] : [...own];
}
