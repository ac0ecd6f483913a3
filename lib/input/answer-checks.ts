import { isPlainObject } from '../core/is-plain-object.js';
import { describeProblems, type ValueCheck } from '../mcp/json-schema.js';
import { formContentCheck } from './form-content-check.js';
import type { InputRequest } from './input-requests.js';

/**
 * Checks a client's answer against what was asked, before any flow sees it: a form answer against
 * the form's schema and the three actions, a sampled message and a roots list against the shapes
 * MCP gives them (CreateMessageResult, ListRootsResult). The answer comes from the client, so a
 * flow that reads `inputResponses` can rely on the shape it asked for. Extra members outside a
 * form's content (`_meta`, `resultType`) are the protocol's business and are left alone.
 */
export function answerProblem(request: InputRequest, answer: unknown): string | undefined {
  if (!isPlainObject(answer)) return 'must be an object';
  switch (request.method) {
    case 'elicitation/create':
      return elicitationProblem(answer, request.params['requestedSchema']);
    case 'sampling/createMessage':
      return samplingProblem(answer);
    case 'roots/list':
      return rootsProblem(answer);
  }
}

/**
 * For an answer nobody asked for (sent without a `requestState`): it must at least be one of the
 * three kinds of answer, since there is no question to hold it against.
 */
export function unaskedAnswerProblem(answer: unknown): string | undefined {
  if (!isPlainObject(answer)) return 'must be an object';
  if ('action' in answer) return elicitationProblem(answer, undefined);
  if ('roots' in answer) return rootsProblem(answer);
  if ('role' in answer || 'model' in answer) return samplingProblem(answer);
  return 'is not an answer to any request (an elicitation, sampling or roots result)';
}

/** The first answer in `answers` to a question in `requests` that fails its check, or undefined. */
export function firstAnswerProblem(requests: Readonly<Record<string, InputRequest>>, answers: Readonly<Record<string, unknown>>): { key: string; problem: string } | undefined {
  for (const [key, answer] of Object.entries(answers)) {
    const request = requests[key];
    if (!request) continue;
    const problem = answerProblem(request, answer);
    if (problem) return { key, problem };
  }
  return undefined;
}

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

function elicitationProblem(answer: Record<string, unknown>, requestedSchema: unknown): string | undefined {
  const action = answer['action'];
  if (typeof action !== 'string' || !ACTIONS.has(action)) return 'action must be "accept", "decline" or "cancel"';
  const content = answer['content'];
  if (action !== 'accept') return content === undefined ? undefined : `a ${action} carries no content`;
  if (!isPlainObject(content)) return 'an accept must carry the form content as an object';
  if (requestedSchema === undefined) return undefined;
  let check: ValueCheck;
  try {
    check = formContentCheck(requestedSchema);
  } catch {
    // Checked when the flow asked; a schema that no longer compiles cannot vouch for any answer.
    return 'cannot be checked against the requested schema';
  }
  const problems = check(content);
  return problems.length === 0 ? undefined : `content does not match the requested schema: ${describeProblems(problems.slice(0, 5))}`;
}

const SAMPLING_BLOCKS: Readonly<Record<string, readonly string[]>> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  tool_use: ['id', 'name'],
  tool_result: ['toolUseId'],
};

function samplingProblem(answer: Record<string, unknown>): string | undefined {
  if (answer['role'] !== 'user' && answer['role'] !== 'assistant') return 'role must be "user" or "assistant"';
  if (typeof answer['model'] !== 'string') return 'model must be a string';
  if (answer['stopReason'] !== undefined && typeof answer['stopReason'] !== 'string') return 'stopReason must be a string';
  const content = answer['content'];
  const blocks = Array.isArray(content) ? content : [content];
  if (blocks.length === 0) return 'content must be a content block or a non-empty array of them';
  for (const [index, block] of blocks.entries()) {
    const where = Array.isArray(content) ? `content[${index}]` : 'content';
    if (!isPlainObject(block) || typeof block['type'] !== 'string') return `${where} must be a content block such as { "type": "text", "text": "..." }`;
    const fields = SAMPLING_BLOCKS[block['type']];
    if (!fields) return `${where}.type must be text, image, audio, tool_use or tool_result`;
    const missing = fields.find((field) => typeof block[field] !== 'string');
    if (missing) return `${where}.${missing} must be a string`;
  }
  return undefined;
}

function rootsProblem(answer: Record<string, unknown>): string | undefined {
  const roots = answer['roots'];
  if (!Array.isArray(roots)) return 'roots must be an array';
  for (const [index, root] of roots.entries()) {
    if (!isPlainObject(root) || typeof root['uri'] !== 'string' || !root['uri'].startsWith('file://')) return `roots[${index}].uri must be a file:// URI`;
    if (root['name'] !== undefined && typeof root['name'] !== 'string') return `roots[${index}].name must be a string`;
  }
  return undefined;
}
