import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthConfiguration } from '../auth-configuration.js';
import { sendJson } from '../../http/responses.js';
import { routePaths, type ProtectedEndpoint } from './bridge-context.js';

/** Every scope a client may ask for: the sign-in's own, then those issued by group (step-up). */
export function offeredScopes(auth: Pick<AuthConfiguration, 'scopes' | 'scopeGrants'>): readonly string[] {
  return auth.scopeGrants.scopes.length === 0 ? auth.scopes : [...auth.scopes, ...auth.scopeGrants.scopes];
}

export const PRM_PREFIX = '/.well-known/oauth-protected-resource';
export const AS_METADATA_PATHS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] as const;

/** RFC 8414 metadata; the same JSON is served at the OIDC discovery path for clients that look there. */
export function authorizationServerMetadata(
  issuer: string,
  slug: string,
  scopes: readonly string[],
  options: { registration?: boolean; refresh?: boolean } = {},
) {
  const paths = routePaths(slug);
  return {
    issuer,
    authorization_endpoint: `${issuer}${paths.authorize}`,
    token_endpoint: `${issuer}${paths.token}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // Only what works: without a Refresh Key the refresh grant is not offered at all.
    grant_types_supported: options.refresh ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...scopes],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    revocation_endpoint: `${issuer}${paths.revoke}`,
    revocation_endpoint_auth_methods_supported: ['none'],
    // Advertised only when enabled: clients that see it register instead of using a metadata document.
    ...(options.registration ? { registration_endpoint: `${issuer}${paths.register}` } : {}),
  };
}

/** RFC 9728 metadata for one endpoint (or, at the root, for every endpoint under the origin). */
export function protectedResourceMetadata(resource: string, issuer: string, scopes: readonly string[], name?: string) {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    ...(name ? { resource_name: name } : {}),
  };
}

export function prmPathFor(endpoint: ProtectedEndpoint): string {
  return `${PRM_PREFIX}${endpoint.path}`;
}

/** Metadata documents are public and cacheable for a short while; only GET is meaningful. */
export function serveDocument(document: () => object | undefined) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method_not_allowed' }, { allow: 'GET' });
      return;
    }
    const body = document();
    if (!body) {
      sendJson(res, 404, { error: 'not_found' });
      return;
    }
    sendJson(res, 200, body, { 'cache-control': 'public, max-age=300' });
  };
}
