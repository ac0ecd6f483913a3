/**
 * The exact commands and configuration snippets that register one endpoint with the MCP clients
 * people use (see CLIENTS.md for how each behaves), as the editor's sidebar offers them for copying.
 */

/** How a signed-in client gets its OAuth client id on an endpoint's `mcp-auth`. */
export interface ClientAcceptance {
  /** Claude Code's metadata document is fetched (its host is allowed or the document pinned). */
  readonly claudeDocument: boolean;
  /** Codex's metadata document (on chatgpt.com) is accepted. */
  readonly codexDocument: boolean;
  /** Dynamic client registration is on (VS Code, Cursor; Codex when asked to). */
  readonly registration: boolean;
}

export interface EndpointForClients {
  /** The endpoint's MCP name; made into a name every client accepts. */
  readonly name: string;
  readonly url: string;
  /** Absent for Local access. */
  readonly oauth?: ClientAcceptance;
}

/** Why a client cannot sign in as configured; a catalog key of the sidebar (`sidebar.notes.*`). */
export type ClientNote = 'claudeCannotSignIn' | 'codexCannotSignIn' | 'editorsNeedRegistration';

export interface ClientCommands {
  readonly claude: string;
  readonly codex: string;
  /** `.vscode/mcp.json` */
  readonly vscode: string;
  /** `.cursor/mcp.json` (or `~/.cursor/mcp.json`) */
  readonly cursor: string;
  readonly notes: readonly ClientNote[];
}

/** Codex's own metadata document (CLIENTS.md); its host must be allowed for Codex to sign in with it. */
export const CODEX_CLIENT_DOCUMENT = 'https://chatgpt.com/oauth/codex/client.json';
export const CLAUDE_CODE_CLIENT_DOCUMENT = 'https://claude.ai/oauth/claude-code-client-metadata';

export function clientCommands(endpoint: EndpointForClients): ClientCommands {
  const name = clientName(endpoint.name);
  const url = shellWord(endpoint.url);
  const oauth = endpoint.oauth;
  // Codex prefers its metadata document whenever the server advertises documents (this bridge always
  // does); when that document is refused but registration is on, it must be told to register.
  const codexRegisters = oauth !== undefined && !oauth.codexDocument && oauth.registration;
  const notes: ClientNote[] = [];
  if (oauth && !oauth.claudeDocument) notes.push('claudeCannotSignIn');
  if (oauth && !oauth.codexDocument && !oauth.registration) notes.push('codexCannotSignIn');
  if (oauth && !oauth.registration) notes.push('editorsNeedRegistration');
  return {
    claude: `claude mcp add --transport http ${name} ${url}`,
    codex: `codex mcp add ${name} --url ${url}${codexRegisters ? ' --oauth-client-registration dcr' : ''}`,
    vscode: JSON.stringify({ servers: { [name]: { type: 'http', url: endpoint.url } } }, null, 2),
    cursor: JSON.stringify({ mcpServers: { [name]: { url: endpoint.url } } }, null, 2),
    notes,
  };
}

/**
 * Claude Code and Codex take letters, digits, `-` and `_` in a server name; an MCP name may also hold
 * spaces and dots, which become `-`.
 */
export function clientName(name: string): string {
  const cleaned = name.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return cleaned === '' ? 'node-red' : cleaned;
}

/** A URL as one shell word: as is when it holds only characters no shell treats specially. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_\-.:/~%@+=,]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
