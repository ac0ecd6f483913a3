import { SCOPE_TOKEN } from '../../access/required-scopes.js';
import { sha256 } from '../secrets.js';
import { invalidRequest } from '../oauth-error.js';
import { invalidScope } from './refresh-failures.js';

/** What the token endpoint passes on for grant_type=refresh_token (form fields, as sent). */
export interface RefreshRequest {
  readonly refreshToken: string;
  readonly clientId: string;
  readonly resource?: string | undefined;
  readonly scope?: string | undefined;
}

export interface ParsedRefreshRequest {
  readonly tokenHash: string;
  /** False for a value no token of ours can be (too long): looked up as unknown without storage. */
  readonly plausible: boolean;
  readonly clientId: string;
  readonly resource: string | undefined;
  readonly scope: readonly string[] | undefined;
}

/** Our tokens are 43 characters; anything far longer is not one and is not hashed at length. */
const MAX_TOKEN_LENGTH = 512;

export function parseRefreshRequest(request: RefreshRequest): ParsedRefreshRequest {
  const token = request?.refreshToken;
  if (typeof token !== 'string' || token === '') throw invalidRequest('refresh_token is required.');
  const clientId = request.clientId;
  if (typeof clientId !== 'string' || clientId === '') throw invalidRequest('client_id is required.');
  const plausible = token.length <= MAX_TOKEN_LENGTH;
  return {
    tokenHash: plausible ? sha256(token) : '',
    plausible,
    clientId,
    // An empty form field means "not sent", as for every optional parameter of the token endpoint.
    resource: typeof request.resource === 'string' && request.resource !== '' ? request.resource : undefined,
    scope: parseScope(request.scope),
  };
}

function parseScope(value: string | undefined): string[] | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const tokens = value.split(' ').filter((token) => token !== '');
  if (!tokens.every((token) => SCOPE_TOKEN.test(token))) throw invalidScope();
  return [...new Set(tokens)];
}

/**
 * RFC 6749 §6: the scope of a refreshed token is the one granted at sign-in, or a subset the client
 * names; never more. Kept in the granted order so equal sets compare equal.
 */
export function effectiveScope(requested: readonly string[] | undefined, granted: readonly string[]): string[] {
  if (requested === undefined) return [...granted];
  if (!requested.every((scope) => granted.includes(scope))) throw invalidScope();
  return granted.filter((scope) => requested.includes(scope));
}

export function sameScope(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((scope) => b.includes(scope));
}
