import { isScopeToken } from '../access/required-scopes.js';
import { McpPaletteError } from '../core/errors.js';

/** The scopes a sign-in has of its own: never granted by group, so never listed here. */
const SIGN_IN_SCOPES = new Set(['openid', 'profile', 'email', 'groups', 'offline_access']);
const MAX_RULES = 64;
const MAX_GROUP_LENGTH = 256;
const RULE = /^(\S+)\s+=\s*(.*)$/;

/**
 * An `mcp-auth`'s *Scopes by group*: extra scopes the bridge offers beyond the sign-in's own, each
 * issued only to members of its groups. Items that require one answer a token without it with a
 * step-up challenge (403 insufficient_scope), and the client signs in again asking for it.
 */
export class ScopeGrants {
  private readonly groupsOf: ReadonlyMap<string, readonly string[]>;

  constructor(rules: ReadonlyMap<string, readonly string[]> = new Map()) {
    this.groupsOf = rules;
  }

  /** The extra scopes, in the order they were written (the metadata documents list them). */
  get scopes(): readonly string[] {
    return [...this.groupsOf.keys()];
  }

  has(scope: string): boolean {
    return this.groupsOf.has(scope);
  }

  /** The groups a scope is issued to; undefined for a scope that is not granted by group. */
  groupsFor(scope: string): readonly string[] | undefined {
    return this.groupsOf.get(scope);
  }

  /**
   * What of `scope` a user in `groups` may hold: the sign-in's own scopes always, a scope granted by
   * group only while the user is in one of its groups. Applied when a code is issued, and again on
   * every request, against the groups the token's identity has now (refreshed with each refresh).
   */
  allowed(scope: readonly string[], groups: readonly string[]): readonly string[] {
    if (this.groupsOf.size === 0) return scope;
    return scope.filter((item) => {
      const allowed = this.groupsOf.get(item);
      return allowed === undefined || allowed.some((group) => groups.includes(group));
    });
  }

  static readonly none = new ScopeGrants();
}

/**
 * Parses the field as the editor saves it: one `scope = group, group` per line; blank lines and
 * lines starting with # are skipped. Anything else is refused with its line number, so the node's
 * status points at the line to fix.
 */
export function parseScopeGrants(value: unknown): ScopeGrants {
  if (value === undefined || value === null || value === '') return ScopeGrants.none;
  if (typeof value !== 'string') throw invalidLine(1);
  const rules = new Map<string, readonly string[]>();
  const lines = value.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = RULE.exec(line);
    const scope = match?.[1] ?? '';
    const groups = [...new Set((match?.[2] ?? '').split(/[\s,]+/).filter(Boolean))];
    const valid = isScopeToken(scope) && !SIGN_IN_SCOPES.has(scope) && !rules.has(scope)
      && groups.length > 0 && groups.every((group) => group.length <= MAX_GROUP_LENGTH) && rules.size < MAX_RULES;
    if (!valid) throw invalidLine(index + 1);
    rules.set(scope, Object.freeze(groups));
  }
  return rules.size > 0 ? new ScopeGrants(rules) : ScopeGrants.none;
}

function invalidLine(line: number): McpPaletteError {
  return new McpPaletteError('invalid_scope_groups', `scopes by group, line ${line}: write "scope = group, group" (a scope once, at most ${MAX_RULES}, not one of the sign-in's own scopes)`, { line: String(line) });
}
