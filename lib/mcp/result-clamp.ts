import type { CallToolResult } from '@modelcontextprotocol/server';

/** Marks a clamped result so clients and logs can tell; the text note says the same for the model. */
export const TRUNCATION_META_KEY = 'io.flowmcp/truncated';

const MIN_STRING_BUDGET = 64;
const MIN_ARRAY_BUDGET = 1;

/**
 * Keeps a tool result under `maxBytes` of JSON by shrinking it structurally: long strings are
 * shortened and long arrays cut, everywhere in the content and the structured content, with
 * shrinking budgets until it fits. The result is always whole, valid JSON — never cut mid-value —
 * and says what happened in a final text item and in `_meta`.
 */
export function clampResult(result: CallToolResult, maxBytes: number): CallToolResult {
  const originalBytes = byteSize(result);
  if (originalBytes <= maxBytes) return result;

  let stringBudget = Math.max(MIN_STRING_BUDGET, Math.floor(maxBytes / 2));
  let arrayBudget = 1_000;
  for (;;) {
    const clamped = shrink(result, stringBudget, arrayBudget) as CallToolResult;
    const withNote = annotate(clamped, originalBytes, maxBytes);
    if (byteSize(withNote) <= maxBytes || (stringBudget === MIN_STRING_BUDGET && arrayBudget === MIN_ARRAY_BUDGET)) {
      return byteSize(withNote) <= maxBytes ? withNote : annotate({ content: [] }, originalBytes, maxBytes);
    }
    stringBudget = Math.max(MIN_STRING_BUDGET, Math.floor(stringBudget / 2));
    arrayBudget = Math.max(MIN_ARRAY_BUDGET, Math.floor(arrayBudget / 2));
  }
}

function shrink(value: unknown, stringBudget: number, arrayBudget: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= stringBudget) return value;
    return `${value.slice(0, stringBudget)}… [${value.length - stringBudget} more characters]`;
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, arrayBudget).map((item) => shrink(item, stringBudget, arrayBudget));
    return kept;
  }
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Binary payloads cannot be shortened meaningfully: a cut image is a broken image.
      copy[key] = isBinaryField(value as Record<string, unknown>, key) ? (typeof item === 'string' && item.length > stringBudget ? '' : item) : shrink(item, stringBudget, arrayBudget);
    }
    return copy;
  }
  return value;
}

/** Base64 payloads of MCP content: image/audio `data` and a blob resource's `blob` (not a user's own field of that name). */
function isBinaryField(holder: Record<string, unknown>, key: string): boolean {
  if (key === 'data') return holder['type'] === 'image' || holder['type'] === 'audio';
  return key === 'blob' && typeof holder['uri'] === 'string';
}

function annotate(result: CallToolResult, originalBytes: number, maxBytes: number): CallToolResult {
  return {
    ...result,
    content: [
      ...result.content,
      { type: 'text', text: `Note: this result was ${originalBytes} bytes and has been shortened to fit the ${maxBytes}-byte limit; long texts and lists were cut.` },
    ],
    _meta: { ...result._meta, [TRUNCATION_META_KEY]: { originalBytes, limitBytes: maxBytes } },
  };
}

function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}
