import type { CompleteResult } from '@modelcontextprotocol/server';
import { McpPaletteError } from '../../core/errors.js';

/** Suggested values per argument or template variable, as set in the editor. */
export type CompletionValues = ReadonlyMap<string, readonly string[]>;

/** The spec caps one completion answer at 100 values. */
export const MAX_COMPLETION_VALUES = 100;

/**
 * Parses the editor's completion text: one line per variable, `name: value, value, ...`. Every
 * name must be one of `known`, so a typo is caught at deploy rather than never completing.
 */
export function parseCompletionLines(text: unknown, known: readonly string[]): CompletionValues {
  const values = new Map<string, readonly string[]>();
  if (typeof text !== 'string') return values;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (name === '' || !known.includes(name)) {
      throw new McpPaletteError('invalid_completions', `completion line ${index + 1} names no known variable`, { line: index + 1 });
    }
    values.set(name, splitValues(line.slice(colon + 1)));
  }
  return values;
}

/** `a, b , c` -> ['a', 'b', 'c']; blanks dropped, duplicates kept once. */
export function splitValues(text: unknown): readonly string[] {
  if (typeof text !== 'string') return [];
  return Object.freeze([...new Set(text.split(',').map((value) => value.trim()).filter((value) => value !== ''))]);
}

/** The values that start with what the user typed (case-insensitive), capped per the spec. */
export function completeFrom(values: readonly string[] | undefined, typed: string): CompleteResult {
  const prefix = typed.toLowerCase();
  const matches = (values ?? []).filter((value) => value.toLowerCase().startsWith(prefix));
  return {
    completion: {
      values: matches.slice(0, MAX_COMPLETION_VALUES),
      total: matches.length,
      hasMore: matches.length > MAX_COMPLETION_VALUES,
    },
  };
}
