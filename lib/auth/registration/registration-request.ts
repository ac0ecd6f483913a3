import type { ApplicationType } from '../clients/client-metadata.js';
import { checkRedirectUri } from './registration-redirects.js';
import type { RegistrationPolicy } from './registration-policy.js';

/** What a valid registration request asks for, after defaults; everything else the client sent is ignored. */
export interface RegistrationRequest {
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
  readonly responseTypes: readonly string[];
  readonly clientName?: string;
  readonly applicationType: ApplicationType;
}

/** A refused registration; `error` is one of RFC 7591 §3.2.2's codes, `description` is safe to show. */
export class RegistrationRefused extends Error {
  constructor(
    readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata',
    readonly description: string,
  ) {
    super(`${error}: ${description}`);
    this.name = 'RegistrationRefused';
  }
}

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/**
 * Validates RFC 7591 client metadata for a public client of this bridge. `token_endpoint_auth_method`
 * absent means `none` here, not RFC 7591's `client_secret_basic`: this server has no secrets to hand
 * out, and every MCP client that registers is a public client. Display-only fields (`client_uri`,
 * `logo_uri`, `tos_uri`...) are dropped rather than shown on the consent page, because nobody vouches
 * for what an anonymous registration says about itself; so are `scope`, `jwks`, `software_statement`
 * (RFC 7591 §3.1.1 lets a server ignore metadata it does not support).
 *
 * `allowRefreshToken` false removes `refresh_token` from the grant types (RFC 7591 §3.2.1: the
 * server may replace requested values) when refresh is not configured.
 */
export function parseRegistrationRequest(json: unknown, policy: RegistrationPolicy, allowRefreshToken: boolean): RegistrationRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw metadataError('the request body must be a JSON object of client metadata');
  }
  const body = json as Record<string, unknown>;

  const authMethod = body['token_endpoint_auth_method'];
  if (authMethod !== undefined && authMethod !== 'none') {
    throw metadataError('token_endpoint_auth_method must be "none": this server registers public clients only (PKCE, no secret)');
  }

  const grantTypes = stringList(body, 'grant_types') ?? ['authorization_code'];
  const unknownGrant = grantTypes.find((grant) => !GRANT_TYPES.has(grant));
  if (unknownGrant !== undefined) throw metadataError('grant_types may contain only "authorization_code" and "refresh_token"');
  if (!grantTypes.includes('authorization_code')) throw metadataError('grant_types must include "authorization_code"');
  const responseTypes = stringList(body, 'response_types') ?? ['code'];
  if (responseTypes.some((type) => type !== 'code')) throw metadataError('response_types may contain only "code"');

  const applicationType = body['application_type'];
  if (applicationType !== undefined && applicationType !== 'web' && applicationType !== 'native') {
    throw metadataError('application_type must be "web" or "native"');
  }

  const redirectUris = body['redirect_uris'];
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) {
    throw new RegistrationRefused('invalid_redirect_uri', 'redirect_uris is required: a non-empty array of redirect URIs');
  }
  if (redirectUris.length > policy.maxRedirectUris) {
    throw new RegistrationRefused('invalid_redirect_uri', `redirect_uris may list at most ${policy.maxRedirectUris} URIs`);
  }
  const kinds = redirectUris.map((uri, index) => {
    const check = checkRedirectUri(uri, policy.customSchemes, policy.maxUriLength);
    if (!check.ok) throw new RegistrationRefused('invalid_redirect_uri', `redirect_uris[${index}] ${check.why}`);
    return check.kind;
  });

  const request: { -readonly [K in keyof RegistrationRequest]: RegistrationRequest[K] } = {
    redirectUris: Object.freeze([...new Set(redirectUris as string[])]),
    grantTypes: Object.freeze(dedupe(allowRefreshToken ? grantTypes : grantTypes.filter((grant) => grant !== 'refresh_token'))),
    responseTypes: Object.freeze(dedupe(responseTypes)),
    // RFC 8252: an app that receives its code on a loopback port or through a custom scheme is a
    // native app, so the any-port loopback rule applies; only all-https clients match exactly. The
    // client's own application_type is not trusted to widen or narrow that.
    applicationType: kinds.every((kind) => kind === 'https') ? 'web' : 'native',
  };
  const clientName = optionalName(body['client_name'], policy.maxClientNameLength);
  if (clientName !== undefined) request.clientName = clientName;
  return Object.freeze(request);
}

function metadataError(description: string): RegistrationRefused {
  return new RegistrationRefused('invalid_client_metadata', description);
}

function stringList(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > 10 || !value.every((item) => typeof item === 'string')) {
    throw metadataError(`${field} must be a non-empty array of strings`);
  }
  return value as string[];
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Shown on the consent page and in logs: one line of printable text, trimmed, bounded. */
function optionalName(value: unknown, maxLength: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw metadataError('client_name must be a string');
  const name = value.trim();
  if (name.length > maxLength) throw metadataError(`client_name must be at most ${maxLength} characters`);
  // Controls, line breaks and bidi overrides: nothing that could make the consent page say something else.
  if (/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/.test(name)) throw metadataError('client_name must be one line of printable text');
  return name === '' ? undefined : name;
}
