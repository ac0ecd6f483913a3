/** Who may use one tool, resource or prompt, beyond the endpoint's own access. */
export interface ItemAccess {
  /** Only members of one of these groups see and may use it; absent: every caller let in. */
  readonly allowedGroups?: readonly string[];
  /** Scopes a caller's token must carry to use it; absent: signing in is enough. */
  readonly requiredScopes?: readonly string[];
}

/** Just the item's access fields, the absent ones left out (for the sidebar and status lines). */
export function itemAccess(item: ItemAccess): ItemAccess {
  return { ...(item.allowedGroups ? { allowedGroups: item.allowedGroups } : {}), ...(item.requiredScopes ? { requiredScopes: item.requiredScopes } : {}) };
}
