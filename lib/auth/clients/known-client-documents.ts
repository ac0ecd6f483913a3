/**
 * Client metadata documents of well-known MCP clients, as their URLs serve them (shared/CLIENTS.md),
 * for what must know them without fetching: the `npm run start:oauth` demo pins Claude Code's, so it
 * signs in with no internet, and the tests check the bridge against the real shape. A copy here is
 * trusted only where an admin pins it in an mcp-auth; the bridge itself never consults this list.
 */

/** Claude Code's: portless loopback redirect URIs and no application_type (it then sends a port). */
export const CLAUDE_CODE_METADATA_DOCUMENT = Object.freeze({
  client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
  client_name: 'Claude Code',
  client_uri: 'https://claude.ai',
  redirect_uris: Object.freeze(['http://localhost/callback', 'http://127.0.0.1/callback']),
  grant_types: Object.freeze(['authorization_code', 'refresh_token']),
  response_types: Object.freeze(['code']),
  token_endpoint_auth_method: 'none',
});
