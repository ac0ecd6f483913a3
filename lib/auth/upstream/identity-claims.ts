import { ENTRA_ROLES_CLAIM, type EntraProviderSettings, type OidcProviderSettings } from './provider-settings.js';
import { UpstreamError } from './upstream-error.js';

/** Who signed in upstream. For Microsoft the app roles are the groups. */
export interface UpstreamIdentity {
  readonly subject: string;
  readonly email?: string;
  readonly name?: string;
  readonly groups: readonly string[];
  /**
   * The provider's refresh token, present only when the caller asked for it and the provider sent
   * one. Reserved for upstream refresh; never store it unencrypted or log it.
   */
  readonly upstreamRefreshToken?: string;
}

/** Claims as openid-client hands them over: verified ID token claims or a UserInfo response. */
export type Claims = Readonly<Record<string, unknown>>;

/** Beyond these, a claim set is more likely a misconfiguration (or an attack on storage) than a user. */
export const MAX_GROUPS = 1000;
export const MAX_GROUP_LENGTH = 256;
const MAX_NAME_LENGTH = 256;
const MAX_EMAIL_LENGTH = 320;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Generic OIDC: the subject from the verified ID token, email and groups from UserInfo (whose `sub`
 * openid-client has already matched to the ID token's). The email falls back to the ID token when
 * UserInfo leaves it out; groups never do: the reference reads them from UserInfo only.
 */
export function oidcIdentity(idToken: Claims, userInfo: Claims, settings: OidcProviderSettings): UpstreamIdentity {
  const subject = subjectOf(idToken);
  const email = emailFrom(claim(userInfo, settings.emailClaim)) ?? emailFrom(claim(idToken, settings.emailClaim));
  const name = nameFrom(claim(userInfo, 'name')) ?? nameFrom(claim(idToken, 'name'));
  const groups = groupList(claim(userInfo, settings.groupsClaim), settings.groupsClaim, 'invalid_response');
  return identity(subject, email, name, groups ?? []);
}

/**
 * Microsoft Entra ID: everything from the verified ID token. The tenant must be the configured one
 * (a multi-tenant app registration would otherwise accept guests' home tenants), and at least one
 * app role must be assigned: without roles the user can reach no endpoint.
 */
export function entraIdentity(idToken: Claims, settings: EntraProviderSettings): UpstreamIdentity {
  const tid = claim(idToken, 'tid');
  if (typeof tid !== 'string' || tid === '') throw new UpstreamError('missing_claim', 'ID token has no tid (tenant) claim');
  if (tid.toLowerCase() !== settings.tenantId) throw new UpstreamError('tenant_mismatch', 'ID token was issued for another tenant');
  const subject = subjectOf(idToken);
  const groups = groupList(claim(idToken, ENTRA_ROLES_CLAIM), ENTRA_ROLES_CLAIM, 'invalid_token');
  if (!groups || groups.length === 0) {
    throw new UpstreamError('missing_claim', 'ID token has no roles claim: assign the user an app role');
  }
  const email = emailFrom(claim(idToken, 'email')) ?? emailFrom(claim(idToken, 'preferred_username'));
  const name = nameFrom(claim(idToken, 'name'));
  return identity(subject, email, name, groups);
}

function identity(subject: string, email: string | undefined, name: string | undefined, groups: readonly string[]): UpstreamIdentity {
  return Object.freeze({
    subject,
    ...(email === undefined ? {} : { email }),
    ...(name === undefined ? {} : { name }),
    groups: Object.freeze([...groups]),
  });
}

// Own properties only: a claim named `constructor` or `__proto__` must not reach Object.prototype.
function claim(claims: Claims, name: string): unknown {
  return Object.hasOwn(claims, name) ? claims[name] : undefined;
}

function subjectOf(idToken: Claims): string {
  const sub = claim(idToken, 'sub');
  if (typeof sub !== 'string' || sub === '') throw new UpstreamError('invalid_token', 'ID token has no subject');
  return sub;
}

function emailFrom(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_EMAIL_LENGTH && EMAIL.test(value) ? value : undefined;
}

function nameFrom(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= MAX_NAME_LENGTH ? value : undefined;
}

/**
 * A group claim as providers send it: an array of strings, or one string for a single group.
 * `undefined` when absent; anything else is refused rather than guessed at.
 */
function groupList(value: unknown, name: string, reason: 'invalid_response' | 'invalid_token'): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((entry): entry is string => typeof entry === 'string')) {
    throw new UpstreamError(reason, `${name} claim is neither a string nor a list of strings`);
  }
  if (list.length > MAX_GROUPS || list.some((entry) => entry.length > MAX_GROUP_LENGTH)) {
    throw new UpstreamError(reason, `${name} claim is larger than this bridge accepts`);
  }
  return [...new Set(list.filter((entry) => entry !== ''))];
}
