import { isRegisteredClientId } from './registration/registration-record.js';

/**
 * A short, bounded name for the MCP client behind a client_id, for msg.mcp, audit lines and metric
 * labels: the well-known clients by name, a metadata-document client by its host. A registered
 * client's name is self-asserted (anyone may register as "Claude Code"), so its label always says
 * so: `registered:<name>` for a recognised name, `registered` for any other; never a bare verified
 * label such as `claude`.
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

/** The prefix of every registered client's label; a verified label never starts with it. */
export const REGISTERED_LABEL = 'registered';

export function clientLabel(clientId: string, clientName?: string): string {
  if (isRegisteredClientId(clientId)) return registeredLabel(clientName);
  let host: string;
  try {
    host = new URL(clientId).hostname.toLowerCase();
  } catch {
    // No metadata document behind it: whatever name came with it is unverified.
    return clientName ? registeredLabel(clientName) : 'unknown';
  }
  // Codex presents a metadata document on chatgpt.com; its name tells it apart from ChatGPT there.
  if (clientName && /codex/i.test(clientName)) return 'codex';
  for (const [pattern, label] of KNOWN_HOSTS) if (pattern.test(host)) return label;
  return host.slice(0, 253) || 'unknown';
}

/** Bounded like every label: a recognised name or nothing, never the free text itself. */
function registeredLabel(clientName: string | undefined): string {
  if (clientName) for (const [pattern, label] of KNOWN_NAMES) if (pattern.test(clientName)) return `${REGISTERED_LABEL}:${label}`;
  return REGISTERED_LABEL;
}
