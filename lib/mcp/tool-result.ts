import type { CallToolResult } from '@modelcontextprotocol/server';
import { isCallToolResult } from '@modelcontextprotocol/server';
import type { ExecutionOutcome } from '../execution/broker.js';
import { describeError } from '../core/errors.js';
import { describeProblems, isPlainObject, type SchemaProblem } from './json-schema.js';
import { clampResult, TRUNCATION_META_KEY } from './result-clamp.js';
import type { ToolDefinition } from './tool-definition.js';

/** A tool failure as MCP wants it: a result the model can read, not a protocol error. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export function invalidArgumentsResult(toolName: string, problems: readonly SchemaProblem[]): CallToolResult {
  const lines = problems.map((problem) => `- ${argumentName(problem.pointer)}: ${problem.message}`);
  return toolError(`Invalid arguments for tool "${toolName}":\n${lines.join('\n')}`);
}

/**
 * Turns however the call ended into the result the client sees. The flow may answer with a full
 * CallToolResult, a string, or any JSON value. A result over `maxBytes` of JSON is shortened first
 * and checked after, so an output schema is checked against what the client receives: a client
 * never gets data that contradicts the schema it was shown.
 */
export function resultFromOutcome(tool: ToolDefinition, outcome: ExecutionOutcome, maxBytes: number): CallToolResult {
  switch (outcome.kind) {
    case 'timeout':
      if (outcome.client) return toolError(`Tool "${tool.name}" asked the client a question that was not answered within ${formatSeconds(outcome.timeoutMs)}.`);
      return outcome.total
        ? toolError(`Tool "${tool.name}" did not finish within ${formatSeconds(outcome.timeoutMs)} (its maximum total duration).`)
        : toolError(`Tool "${tool.name}" did not answer within ${formatSeconds(outcome.timeoutMs)} (its time limit).`);
    case 'stopped':
      return toolError(`Tool "${tool.name}" was not answered: ${outcome.reason}.`);
    case 'cancelled':
      return toolError(`Tool "${tool.name}" was cancelled ${outcome.byClient ? 'by the client' : 'because the client went away'}.`);
    case 'input':
      // Calls that can ask never get here with a question; this one could not take it.
      return toolError(`Tool "${tool.name}" asked the client for input, which this call cannot do.`);
    case 'answered':
      if (outcome.error !== undefined && outcome.error !== null && outcome.error !== false) {
        return toolError(`Tool "${tool.name}" failed: ${describeFlowError(outcome.error)}`);
      }
      try {
        return checkedAgainstOutputSchema(tool, clampResult(normalizeResult(tool, outcome.result), maxBytes));
      } catch (error) {
        // A BigInt or a circular structure: JSON cannot carry it, so no client could be sent it.
        return toolError(`Tool "${tool.name}" answered with a value that cannot be sent as JSON (${describeError(error)}).`);
      }
  }
}

export function normalizeResult(tool: ToolDefinition, result: unknown): CallToolResult {
  if (isFullResult(result)) return resultFieldsOf(result);
  if (result === undefined || result === null) return { content: [] };
  if (typeof result === 'string') return { content: [{ type: 'text', text: result }] };
  const text = JSON.stringify(result) ?? String(result);
  const normalized: CallToolResult = { content: [{ type: 'text', text }] };
  if (tool.outputSchema && isPlainObject(result)) normalized.structuredContent = result;
  return normalized;
}

const RESULT_FIELDS: ReadonlySet<string> = new Set(['content', 'structuredContent', 'isError', '_meta']);

/**
 * Only the fields MCP defines for a tool result travel. Anything else a flow adds means nothing to a
 * client, and a `resultType` or cache field would be taken for the protocol's own on 2026-07-28.
 */
function resultFieldsOf(result: CallToolResult): CallToolResult {
  if (Object.keys(result).every((key) => RESULT_FIELDS.has(key))) return result;
  const { content, structuredContent, isError, _meta } = result;
  return {
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError !== undefined ? { isError } : {}),
    ...(_meta !== undefined ? { _meta } : {}),
  };
}

function checkedAgainstOutputSchema(tool: ToolDefinition, result: CallToolResult): CallToolResult {
  if (!tool.checkStructuredContent || result.isError) return result;
  if (result.structuredContent === undefined) {
    return toolError(`Tool "${tool.name}" declares an output schema but its flow returned no structured content.`);
  }
  // The client receives the JSON text of the value, not the value: Infinity and NaN become null,
  // undefined members vanish, a Date becomes a string. Checking the value itself let a number the
  // schema requires pass and then arrive as null, so the JSON form is what is checked and sent (one
  // more stringify and parse of the structured content, only for tools with an output schema).
  // The clamp has already written the whole result as JSON once, so this cannot throw.
  const sent: unknown = JSON.parse(JSON.stringify(result.structuredContent));
  if (!isPlainObject(sent)) return toolError(`Tool "${tool.name}" returned structured content that is not a JSON object.`);
  const problems = tool.checkStructuredContent(sent);
  if (problems.length > 0) {
    const shortened = result._meta?.[TRUNCATION_META_KEY] !== undefined ? ', once shortened to fit the result size limit,' : '';
    return toolError(`Tool "${tool.name}" returned structured content that${shortened} does not match its output schema: ${describeProblems(problems)}`);
  }
  return { ...result, structuredContent: sent };
}

/**
 * A full result is recognised by its `content` array and accepted only if it is valid MCP; a
 * plain object that merely happens to have a `content` field is treated as data, not as a result.
 */
function isFullResult(value: unknown): value is CallToolResult {
  return isPlainObject(value) && Array.isArray(value.content) && (isTextOnlyResult(value) || isCallToolResult(value));
}

/**
 * The full result flows and edges send most: text blocks and perhaps `isError`, nothing more. It is
 * a strict subset of what the SDK's schema accepts (tool-result.test.ts holds the two together), so
 * it is recognised without the schema's parse, which a relayed call paid on the hub for every answer.
 */
export function isTextOnlyResult(value: Record<string, unknown>): boolean {
  for (const key in value) if (key !== 'content' && key !== 'isError') return false;
  if (value['isError'] !== undefined && typeof value['isError'] !== 'boolean') return false;
  const content = value['content'];
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

export function describeFlowError(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isPlainObject(error) && typeof error.message === 'string') return error.message;
  return JSON.stringify(error) ?? 'unknown error';
}

export function argumentName(pointer: string): string {
  if (pointer === '/') return '(arguments)';
  const path = pointer.slice(1).split('/').map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.join('.');
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
