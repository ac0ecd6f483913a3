import type { CompleteResult } from '@modelcontextprotocol/server';
import { DEFAULTS } from '../../core/defaults.js';
import { McpPaletteError } from '../../core/errors.js';
import { InvalidAnswerError } from './content-answers.js';

/** Suggested values per argument or template variable, as set in the editor. */
export type CompletionValues = ReadonlyMap<string, readonly string[]>;

/** The spec caps one completion answer at 100 values. */
export const MAX_COMPLETION_VALUES = DEFAULTS.maxCompletionValues;

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

/**
 * Turns a flow's `mcp-completion-response` into a completion result: `values` (strings) filtered by
 * what the user typed and capped like a list set in the editor, so a flow may answer with everything
 * it knows. The flow's `total` is kept only when the filter removed nothing (it then describes what
 * is shown); `hasMore` from the flow is kept. Throws InvalidAnswerError for anything but strings.
 */
export function completeFromFlow(answer: unknown, typed: string): CompleteResult {
  const given = Array.isArray(answer) ? { values: answer } : isObject(answer) ? answer : undefined;
  const values = given?.['values'];
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
    throw new InvalidAnswerError('the flow answered without values: a list of strings');
  }
  const prefix = typed.toLowerCase();
  const matches = (values as string[]).filter((value) => value.toLowerCase().startsWith(prefix));
  const shown = matches.slice(0, MAX_COMPLETION_VALUES);
  const flowTotal = given!['total'];
  const total = Number.isInteger(flowTotal) && (flowTotal as number) >= matches.length && matches.length === values.length ? (flowTotal as number) : matches.length;
  return { completion: { values: shown, total, hasMore: given!['hasMore'] === true || total > shown.length } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
