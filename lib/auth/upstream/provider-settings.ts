import { createHash } from 'node:crypto';
import { isLoopbackHost } from '../../access/loopback.js';
import { McpPaletteError } from '../../core/errors.js';

/**
 * The one upstream identity provider an `mcp-auth` configuration signs users in with. Scopes and the
 * Microsoft claim names are fixed here, not in the editor, so a configuration cannot ask the provider
 * for less (or more) than the bridge relies on.
 */
export type ProviderKind = 'oidc' | 'entra';

export const OIDC_SCOPES: readonly string[] = Object.freeze(['openid', 'profile', 'email', 'groups']);
export const ENTRA_SCOPES: readonly string[] = Object.freeze(['openid', 'profile', 'email']);
/** Microsoft permissions are app roles, read only from the verified ID token. */
export const ENTRA_ROLES_CLAIM = 'roles';
export const DEFAULT_EMAIL_CLAIM = 'email';
export const DEFAULT_GROUPS_CLAIM = 'groups';
export const ENTRA_DEFAULT_AUTHORITY = 'https://login.microsoftonline.com';
/** Public cloud and the sovereign clouds; anything else could be an attacker-run look-alike. */
export const ENTRA_AUTHORITY_HOSTS: readonly string[] = Object.freeze([
  'login.microsoftonline.com',
  'login.microsoftonline.us',
  'login.chinacloudapi.cn',
  'login.partner.microsoftonline.cn',
]);

/** What a node file hands over, straight from the editor / credentials (strings may be padded). */
export interface OidcProviderInput {
  readonly kind: 'oidc';
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly emailClaim?: string | undefined;
  readonly groupsClaim?: string | undefined;
}

export interface EntraProviderInput {
  readonly kind: 'entra';
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Origin of the Microsoft login service; default the public cloud. */
  readonly authorityHost?: string | undefined;
}

export type ProviderSettingsInput = OidcProviderInput | EntraProviderInput;

export interface OidcProviderSettings {
  readonly kind: 'oidc';
  /** Normalised with `new URL().href`, the form openid-client compares discovered issuers in. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly emailClaim: string;
  readonly groupsClaim: string;
  readonly scopes: readonly string[];
}

export interface EntraProviderSettings {
  readonly kind: 'entra';
  /** Lower-case GUID, the form Microsoft puts in the `tid` claim. */
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Origin only, e.g. `https://login.microsoftonline.com`. */
  readonly authorityHost: string;
  /** `<authority>/<tenant>/v2.0`: the tenant-specific v2 issuer, never `common`/`organizations`. */
  readonly issuer: string;
  readonly scopes: readonly string[];
}

export type ProviderSettings = OidcProviderSettings | EntraProviderSettings;

export interface ProviderSettingsOptions {
  /**
   * Tests only: let the Entra authority be a plain-http loopback origin (a local test provider that
   * imitates Microsoft's issuer format). Node files never set this.
   */
  readonly allowLoopbackAuthority?: boolean;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Claim names may be URIs (namespaced claims), so allow any visible ASCII, but no spaces. */
const CLAIM_NAME = /^[\x21-\x7e]{1,256}$/;
/** RFC 6749 client_id characters are visible ASCII and space; we refuse the space and very long ids. */
const CLIENT_ID = /^[\x21-\x7e]{1,512}$/;
const SLUG = /^[a-z][a-z0-9-]{0,62}$/;

/** Validates and normalises provider settings; throws McpPaletteError with a field-specific code. */
export function parseProviderSettings(input: ProviderSettingsInput, options: ProviderSettingsOptions = {}): ProviderSettings {
  const kind = (input as { kind?: unknown } | null | undefined)?.kind;
  if (kind === 'oidc') return parseOidc(input as OidcProviderInput);
  if (kind === 'entra') return parseEntra(input as EntraProviderInput, options);
  throw new McpPaletteError('invalid_provider', 'provider must be "oidc" or "entra"');
}

function parseOidc(input: OidcProviderInput): OidcProviderSettings {
  const issuer = parseIssuer(input.issuer);
  const clientId = text(input.clientId);
  if (!CLIENT_ID.test(clientId)) throw new McpPaletteError('invalid_client_id', 'client ID is missing or malformed');
  const clientSecret = secret(input.clientSecret);
  const emailClaim = claimName(input.emailClaim, DEFAULT_EMAIL_CLAIM, 'emailClaim');
  const groupsClaim = claimName(input.groupsClaim, DEFAULT_GROUPS_CLAIM, 'groupsClaim');
  return Object.freeze({ kind: 'oidc', issuer, clientId, clientSecret, emailClaim, groupsClaim, scopes: OIDC_SCOPES });
}

function parseEntra(input: EntraProviderInput, options: ProviderSettingsOptions): EntraProviderSettings {
  const tenantId = text(input.tenantId).toLowerCase();
  if (!GUID.test(tenantId)) throw new McpPaletteError('invalid_tenant', 'tenant ID must be a GUID');
  const clientId = text(input.clientId).toLowerCase();
  if (!GUID.test(clientId)) throw new McpPaletteError('invalid_client_id', 'application (client) ID must be a GUID');
  const clientSecret = secret(input.clientSecret);
  const authorityHost = parseAuthority(input.authorityHost, options.allowLoopbackAuthority === true);
  return Object.freeze({
    kind: 'entra',
    tenantId,
    clientId,
    clientSecret,
    authorityHost,
    issuer: `${authorityHost}/${tenantId}/v2.0`,
    scopes: ENTRA_SCOPES,
  });
}

function parseIssuer(raw: unknown): string {
  const value = text(raw);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new McpPaletteError('invalid_issuer', 'issuer must be an absolute URL');
  }
  // Plain http only where nobody else can sit on the wire: a provider on this machine.
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure) throw new McpPaletteError('invalid_issuer', 'issuer must use https (http only on loopback)');
  if (url.search || url.hash || url.username || url.password || value.includes('?') || value.includes('#')) {
    throw new McpPaletteError('invalid_issuer', 'issuer must not carry a query, fragment or credentials');
  }
  return url.href;
}

function parseAuthority(raw: unknown, allowLoopback: boolean): string {
  const value = text(raw) || ENTRA_DEFAULT_AUTHORITY;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new McpPaletteError('invalid_authority', 'authority host is malformed');
  }
  const bare = (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username && !url.password;
  if (!bare) throw new McpPaletteError('invalid_authority', 'authority host must be an origin without a path');
  if (url.protocol === 'https:' && url.port === '' && ENTRA_AUTHORITY_HOSTS.includes(url.hostname)) return url.origin;
  if (allowLoopback && url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url.origin;
  throw new McpPaletteError('invalid_authority', 'authority host is not a Microsoft login host', { host: url.host });
}

function claimName(raw: unknown, fallback: string, field: string): string {
  const value = text(raw);
  if (value === '') return fallback;
  if (!CLAIM_NAME.test(value)) throw new McpPaletteError('invalid_claim_name', `${field} is not a valid claim name`, { field });
  return value;
}

function secret(raw: unknown): string {
  // Kept byte for byte (no trimming): the provider compares it exactly.
  if (typeof raw !== 'string' || raw.trim() === '') throw new McpPaletteError('missing_client_secret', 'client secret is missing');
  return raw;
}

function text(raw: unknown): string {
  return typeof raw === 'string' ? raw.trim() : '';
}

/**
 * A short, stable label that isolates every stored record (state, codes, tokens) of one
 * configuration. Anything that changes who a user is or what a token means changes it; the secret
 * does not (rotating a secret must not sign everyone out), and is never hashed into a stored key.
 */
export function namespaceOf(settings: ProviderSettings, slug: string): string {
  if (typeof slug !== 'string' || !SLUG.test(slug)) throw new McpPaletteError('invalid_slug', 'OAuth slug is malformed');
  const parts = settings.kind === 'oidc'
    ? ['v1', 'oidc', settings.issuer, settings.clientId, settings.emailClaim, settings.groupsClaim, slug]
    : ['v1', 'entra', settings.issuer, settings.clientId, ENTRA_ROLES_CLAIM, slug];
  // JSON keeps the parts unambiguous: no separator inside a value can shift a boundary.
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

/** True when openid-client must be told to accept plain http: only a provider on this machine. */
export function isLoopbackHttpIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}
