import { isLoopbackHost } from '../../access/loopback.js';
import { isPlainObject } from '../../core/is-plain-object.js';
import { ClientMetadataError } from './client-metadata-error.js';
import { BROWSER_UNSAFE_SCHEMES } from './unsafe-schemes.js';

export type ApplicationType = 'web' | 'native';

/** A validated client metadata document, in camelCase; frozen, arrays included. */
export interface ClientMetadata {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly clientName?: string;
  readonly applicationType?: ApplicationType;
  readonly grantTypes?: readonly string[];
  readonly responseTypes?: readonly string[];
  readonly clientUri?: string;
  readonly logoUri?: string;
  readonly scope?: string;
}

const MAX_URI_LENGTH = 2048;

function invalid(field: string, rule: string): ClientMetadataError {
  return new ClientMetadataError('invalid_document', `client metadata document: ${field} ${rule}`);
}

/** Parses an absolute URI that must be stored and compared byte for byte, so no whitespace or controls. */
function parseUri(value: unknown): URL | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URI_LENGTH) return undefined;
  if (/[\u0000-\u0020\u007f]/.test(value)) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

// OAuth 2.1 / RFC 6749 3.1.2: no fragment; plain http only back to this machine (RFC 8252);
// private-use schemes (cursor://...) are fine.
function isAcceptableRedirectUri(value: unknown): value is string {
  const url = parseUri(value);
  if (url === undefined || (value as string).includes('#')) return false;
  if (url.username !== '' || url.password !== '') return false;
  if (BROWSER_UNSAFE_SCHEMES.has(url.protocol)) return false;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
  return true;
}

function optionalString(document: Record<string, unknown>, field: string): string | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  return value;
}

function optionalStringArray(document: Record<string, unknown>, field: string): readonly string[] | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.length > 0)) {
    throw invalid(field, 'must be an array of strings');
  }
  return Object.freeze([...(value as string[])]);
}

// Shown on the consent page as links and images, so only web URLs.
function optionalWebUri(document: Record<string, unknown>, field: string): string | undefined {
  const value = document[field];
  if (value === undefined) return undefined;
  const url = parseUri(value);
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalid(field, 'must be an absolute http(s) URL');
  }
  return value as string;
}

/**
 * Validates a client metadata document (fetched, or pinned by the admin) and returns it normalized.
 * `expectedUrl` is the URL the document was fetched from (or claims to be); its `client_id` must be
 * that exact string. Only public clients are accepted: `token_endpoint_auth_method` absent or
 * `none`, and no `client_secret`. Unknown fields are ignored. Throws ClientMetadataError with
 * reason `invalid_document` or `client_id_mismatch`.
 */
export function parseClientMetadataDocument(json: unknown, expectedUrl: string): ClientMetadata {
  if (!isPlainObject(json)) {
    throw new ClientMetadataError('invalid_document', 'client metadata document must be a JSON object');
  }
  const clientId = json['client_id'];
  if (typeof clientId !== 'string') throw invalid('client_id', 'must be a string');
  if (clientId !== expectedUrl) {
    throw new ClientMetadataError('client_id_mismatch', 'client metadata document client_id does not match its URL');
  }

  const authMethod = json['token_endpoint_auth_method'];
  if (authMethod !== undefined && authMethod !== 'none') {
    throw invalid('token_endpoint_auth_method', 'must be "none": only public clients are supported');
  }
  if (json['client_secret'] !== undefined || json['client_secret_expires_at'] !== undefined) {
    throw invalid('client_secret', 'must not be present in a public document');
  }

  const redirectUris = json['redirect_uris'];
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every(isAcceptableRedirectUri)) {
    throw invalid(
      'redirect_uris',
      'must be a non-empty array of absolute URLs without fragment (http only for loopback)',
    );
  }

  const applicationType = json['application_type'];
  if (applicationType !== undefined && applicationType !== 'web' && applicationType !== 'native') {
    throw invalid('application_type', 'must be "web" or "native"');
  }

  const metadata: {
    -readonly [K in keyof ClientMetadata]: ClientMetadata[K];
  } = { clientId, redirectUris: Object.freeze([...(redirectUris as string[])]) };
  const clientName = optionalString(json, 'client_name')?.trim();
  if (clientName) metadata.clientName = clientName;
  if (applicationType !== undefined) metadata.applicationType = applicationType;
  const grantTypes = optionalStringArray(json, 'grant_types');
  if (grantTypes !== undefined) metadata.grantTypes = grantTypes;
  const responseTypes = optionalStringArray(json, 'response_types');
  if (responseTypes !== undefined) metadata.responseTypes = responseTypes;
  const clientUri = optionalWebUri(json, 'client_uri');
  if (clientUri !== undefined) metadata.clientUri = clientUri;
  const logoUri = optionalWebUri(json, 'logo_uri');
  if (logoUri !== undefined) metadata.logoUri = logoUri;
  const scope = optionalString(json, 'scope');
  if (scope !== undefined) metadata.scope = scope;
  return Object.freeze(metadata);
}
