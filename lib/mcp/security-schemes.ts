import type { AccessMode } from '../config/flow-server-config.js';

/**
 * How a client gets to call a tool, as ChatGPT's apps and other clients read it from each tool
 * (`securitySchemes`, and the same under `_meta.securitySchemes`): OAuth endpoints name the scopes
 * their sign-in grants, Local endpoints need nothing.
 */
export type SecurityScheme = { readonly type: 'noauth' } | { readonly type: 'oauth2'; readonly scopes: readonly string[] };

/**
 * `scopes` are the mcp-auth's own list (the ones its metadata documents advertise), which holds
 * `offline_access` only when refresh tokens are configured.
 */
export function securitySchemesFor(access: AccessMode, scopes: readonly string[] = []): readonly SecurityScheme[] {
  if (access === 'local') return Object.freeze([Object.freeze({ type: 'noauth' as const })]);
  return Object.freeze([Object.freeze({ type: 'oauth2' as const, scopes: Object.freeze([...scopes]) })]);
}
