import { McpPaletteError } from '../core/errors.js';
import type { CallerIdentity } from './access-policy.js';

/** The longest group name accepted (the endpoint's groups follow the same rule). */
const MAX_GROUP_LENGTH = 256;

/**
 * An item's *Allowed groups* as the editor saves them: names separated by commas or whitespace, as
 * people paste them from their identity provider. Empty (or absent, in flows saved before the field
 * existed) means the endpoint's groups decide alone: undefined, so an unrestricted item costs nothing.
 */
export function parseAllowedGroups(value: unknown): readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  if (typeof text !== 'string') throw new McpPaletteError('invalid_allowed_groups', 'allowed groups must be text');
  const groups = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  if (groups.some((group) => group.length > MAX_GROUP_LENGTH)) {
    throw new McpPaletteError('invalid_allowed_groups', `an allowed group is longer than ${MAX_GROUP_LENGTH} characters`);
  }
  return groups.length > 0 ? Object.freeze(groups.sort()) : undefined;
}

/** Whether a caller in `groups` may use an item restricted to `allowed` (undefined: no restriction). */
export function groupsAdmit(allowed: readonly string[] | undefined, groups: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  if (groups === undefined) return false;
  return allowed.some((group) => groups.includes(group));
}

/** The same for a caller: an editor's call (Try it) is let in, the admin route decided who may call. */
export function callerAdmitted(allowed: readonly string[] | undefined, caller: CallerIdentity): boolean {
  return caller.editor !== undefined || groupsAdmit(allowed, caller.groups);
}
