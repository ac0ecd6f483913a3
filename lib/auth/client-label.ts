/**
 * A short, bounded name for the MCP client behind a client_id, for msg.mcp, audit lines and metric
 * labels: the well-known clients by name, anyone else by the host of their metadata document.
 */
const KNOWN_CLIENTS: ReadonlyArray<[RegExp, string]> = [
  [/(^|\.)claude\.(ai|com)$/, 'claude'],
  [/(^|\.)anthropic\.com$/, 'claude'],
  [/(^|\.)openai\.com$/, 'chatgpt'],
  [/(^|\.)chatgpt\.com$/, 'chatgpt'],
];

export function clientLabel(clientId: string, clientName?: string): string {
  if (clientName && /codex/i.test(clientName)) return 'codex';
  let host: string;
  try {
    host = new URL(clientId).hostname.toLowerCase();
  } catch {
    return 'unknown';
  }
  for (const [pattern, label] of KNOWN_CLIENTS) if (pattern.test(host)) return label;
  return host.slice(0, 253) || 'unknown';
}
