/**
 * A short, bounded name for the MCP client behind a client_id, for msg.mcp, audit lines and metric
 * labels: the well-known clients by name, a metadata-document client by its host, a registered
 * client (whose id means nothing) by a recognised name or simply `registered`.
 */
const KNOWN_HOSTS: ReadonlyArray<[RegExp, string]> = [
  [/(^|\.)claude\.(ai|com)$/, 'claude'],
  [/(^|\.)anthropic\.com$/, 'claude'],
  [/(^|\.)openai\.com$/, 'chatgpt'],
  [/(^|\.)chatgpt\.com$/, 'chatgpt'],
];
const KNOWN_NAMES: ReadonlyArray<[RegExp, string]> = [
  [/codex/i, 'codex'],
  [/claude/i, 'claude'],
  [/chatgpt|openai/i, 'chatgpt'],
  [/cursor/i, 'cursor'],
  [/visual studio code|\bvs ?code\b/i, 'vscode'],
  [/inspector/i, 'mcp-inspector'],
];

export function clientLabel(clientId: string, clientName?: string): string {
  if (clientName && /codex/i.test(clientName)) return 'codex';
  let host: string;
  try {
    host = new URL(clientId).hostname.toLowerCase();
  } catch {
    if (!clientName) return 'unknown';
    for (const [pattern, label] of KNOWN_NAMES) if (pattern.test(clientName)) return label;
    return 'registered';
  }
  for (const [pattern, label] of KNOWN_HOSTS) if (pattern.test(host)) return label;
  return host.slice(0, 253) || 'unknown';
}
