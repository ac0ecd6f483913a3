import type { FlowNode } from './flow-shapes.js';
import type { Inspection } from './inspection.js';
import { GET_FLOW_LIMITS } from './limits.js';
import { redactUrlUserInfo } from './redaction.js';

const CODE_KEYS = ['func', 'initialize', 'finalize'] as const;

/**
 * A Function node's code (message handler, then start and stop code) within one shared budget
 * of 10 000 characters. Code is returned as written except for user information in URLs.
 */
export function functionCode(node: FlowNode, inspection: Inspection): Record<string, unknown> | undefined {
  if (node.type !== 'function') return undefined;
  let remaining = GET_FLOW_LIMITS.maxCodeChars;
  let totalChars = 0;
  let truncated = false;
  const code: Record<string, unknown> = {};
  for (const key of CODE_KEYS) {
    const text = node[key];
    if (typeof text !== 'string' || text === '') continue;
    totalChars += text.length;
    // Redact before cutting, so a cut cannot leave half a URL's user information unmatched.
    const safe = redactUrlUserInfo(text);
    if (safe !== text) inspection.findings.redacted.push(`code.${key}`);
    const part = safe.slice(0, remaining);
    remaining -= part.length;
    if (part.length < safe.length) truncated = true;
    code[key] = part;
  }
  if (truncated) inspection.truncated = true;
  return { ...code, totalChars, truncated };
}
