import { McpPaletteError } from '../core/errors.js';

/** RFC 6749 §3.3 scope-token: printable ASCII but space, double quote and backslash. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
export const MAX_SCOPE_LENGTH = 128;
const MAX_REQUIRED_SCOPES = 16;

/**
 * An item's *Required scopes* as the editor saves them: scope tokens separated by commas or
 * whitespace. Empty (or absent, in flows saved before the field existed) means signing in is enough:
 * undefined, so an item without scopes costs nothing on the request path.
 */
export function parseRequiredScopes(value: unknown): readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (typeof text !== 'string') throw invalid();
  const scopes = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  if (scopes.length > MAX_REQUIRED_SCOPES || scopes.some((scope) => !isScopeToken(scope))) throw invalid();
  return scopes.length > 0 ? Object.freeze(scopes.sort()) : undefined;
}

export function isScopeToken(scope: string): boolean {
  return scope.length <= MAX_SCOPE_LENGTH && SCOPE_TOKEN.test(scope);
}

/** The scopes of `required` that `granted` lacks (empty when the token may use the item). */
export function missingScopes(required: readonly string[], granted: readonly string[] | undefined): readonly string[] {
  return granted === undefined ? required : required.filter((scope) => !granted.includes(scope));
}

function invalid(): McpPaletteError {
  return new McpPaletteError('invalid_required_scopes', `required scopes are scope tokens separated by commas or spaces: at most ${MAX_REQUIRED_SCOPES}, each 1-${MAX_SCOPE_LENGTH} characters`);
}
