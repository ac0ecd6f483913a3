/** Claude Code's published client metadata document: portless loopback redirects, no application_type. */
export const CLAUDE_CODE_DOCUMENT = Object.freeze({
  client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
  client_name: 'Claude Code',
  redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});
