// The "Sign-in demo" tab `npm run start:oauth` deploys next to the example flow: an endpoint with
// OAuth sign-in on the example's runtime, its mcp-auth pointing at the demo identity provider, Memory
// storage, and one tool, `whoami`, that answers with the signed-in caller's e-mail from msg.mcp.
import { CLAUDE_CODE_METADATA_DOCUMENT } from '../dist/lib/auth/clients/known-client-documents.js';

export const DEMO_PATH = '/oauth-demo';
export const DEMO_SLUG = 'demo';
export const DEMO_TOOL = 'whoami';
/** The endpoint's MCP name; what the sidebar and the printed commands call it (already a valid client name). */
export const DEMO_SERVER_NAME = 'node-red-demo';
/** The bridge's client secret at the demo provider reaches the mcp-auth node through this variable. */
export const DEMO_SECRET_ENV = 'MCP_DEMO_CLIENT_SECRET';

const TAB = '0a7d3e5c1b2f4d01';

/** The demo nodes for the runtime `runtimeId`, signing in at `issuer` as `clientId`, open to `group`. */
export function demoFlow({ runtimeId, issuer, clientId, group }) {
  const ids = { storage: '0a7d3e5c1b2f4d02', auth: '0a7d3e5c1b2f4d03', server: '0a7d3e5c1b2f4d04', tool: '0a7d3e5c1b2f4d05', answer: '0a7d3e5c1b2f4d06', limited: '0a7d3e5c1b2f4d07', scoped: '0a7d3e5c1b2f4d08' };
  return [
    {
      id: TAB,
      type: 'tab',
      label: 'Sign-in demo',
      disabled: false,
      info: 'DEMO written by `npm run start:oauth` on every start and not kept: an endpoint with OAuth sign-in through a development identity provider on 127.0.0.1. Never use this provider, its user or Memory storage for anything real.',
    },
    { id: ids.storage, type: 'mcp-redis', name: 'demo storage (memory)', mode: 'memory', keyPrefix: 'mcpdemo', urlEnv: '', passwordEnv: '' },
    {
      id: ids.auth,
      type: 'mcp-auth',
      name: 'demo sign-in',
      provider: 'oidc',
      storage: ids.storage,
      slug: DEMO_SLUG,
      // No client host: nothing is ever fetched. Claude Code's document is pinned; every other client
      // (Codex with --oauth-client-registration dcr, VS Code, Cursor, MCP Inspector) registers itself.
      clientHosts: '',
      accessTokenTtl: '900',
      // Pinned, Claude Code's document is never fetched: the demo works as printed with no internet. The
      // bridge uses a pinned copy only for a client_id equal to its exact URL, and only on this mcp-auth.
      pinnedClients: JSON.stringify([CLAUDE_CODE_METADATA_DOCUMENT], null, 2),
      dcrEnabled: true,
      oidcIssuer: issuer,
      oidcClientId: clientId,
      oidcSecretEnv: DEMO_SECRET_ENV,
      oidcEmailClaim: 'email',
      oidcGroupsClaim: 'groups',
      // Scope step-up (docs/access.md): line:write is the bridge's own scope, issued only to mcp-demo.
      scopeGroups: 'line:write = mcp-demo',
    },
    {
      id: ids.server,
      type: 'mcp-flow-server',
      z: TAB,
      name: '',
      serverName: DEMO_SERVER_NAME,
      path: DEMO_PATH,
      runtime: runtimeId,
      access: 'oauth',
      auth: ids.auth,
      groups: group,
      maxConcurrent: '32',
      x: 170,
      y: 140,
      wires: [[ids.answer]],
    },
    {
      id: ids.tool,
      type: 'mcp-tool-registry',
      z: TAB,
      name: '',
      toolName: DEMO_TOOL,
      title: 'Who am I?',
      description: 'Says who signed in: the e-mail address the identity provider gave for the caller.',
      inputSchema: '{\n  "type": "object",\n  "properties": {}\n}',
      outputSchema: '',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
      endpoint: DEMO_PATH,
      timeout: '60',
      x: 170,
      y: 60,
      wires: [],
    },
    {
      // Access per item (docs/access.md): only members of `maintenance` see and may call it, and the
      // demo user is not one, so its tools/list shows whoami alone.
      id: ids.limited,
      type: 'mcp-tool-registry',
      z: TAB,
      name: '',
      toolName: 'restart_line',
      title: 'Restart the line',
      description: 'Restarts the production line. Only the maintenance group sees this tool.',
      inputSchema: '{\n  "type": "object",\n  "properties": {}\n}',
      outputSchema: '',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
      endpoint: DEMO_PATH,
      timeout: '60',
      allowedGroups: 'maintenance',
      x: 170,
      y: 100,
      wires: [],
    },
    {
      // Scope step-up: a token without line:write is answered 403 insufficient_scope, and the client
      // asks the demo user to sign in again for it (Claude Code asks for every offered scope at once).
      id: ids.scoped,
      type: 'mcp-tool-registry',
      z: TAB,
      name: '',
      toolName: 'set_line_speed',
      title: 'Set the line speed',
      description: 'Pretends to change the production line speed. Needs the line:write scope, which a client gets by signing in again.',
      inputSchema: '{\n  "type": "object",\n  "properties": {}\n}',
      outputSchema: '',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
      endpoint: DEMO_PATH,
      timeout: '60',
      requiredScopes: 'line:write',
      x: 170,
      y: 180,
      wires: [],
    },
    {
      id: ids.answer,
      type: 'function',
      z: TAB,
      name: 'answer with the caller',
      func: "msg.topic = 'mcp-tool-response';\nmsg.payload = {\n    executionId: msg.payload.executionId,\n    result: 'You are signed in as ' + msg.mcp.email + ' (groups: ' + msg.mcp.groups.join(', ') + ')'\n};\nreturn msg;",
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      x: 420,
      y: 140,
      wires: [[ids.server]],
    },
  ];
}
