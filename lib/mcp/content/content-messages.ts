import type { CancelReason } from '../../execution/cancellation.js';
import type { ContentCall, ContentContext } from './content-types.js';
import type { RoundInput } from '../../execution/broker.js';
import { roundFields } from '../../input/round-fields.js';

/**
 * What the mcp-flow-server sends for a read, prompt or completion: topic, payload and `msg.mcp`. A
 * type, not an interface, so that it is a Node-RED message as it is.
 */
export type ContentMessage = {
  readonly topic: string;
  readonly payload: Record<string, unknown>;
  readonly mcp: ContentContext;
};

const REQUEST_TOPICS = { 'resource-read': 'mcp-resource-read', 'prompt-get': 'mcp-prompt-get', completion: 'mcp-completion' } as const;
const CANCEL_TOPICS = { 'resource-read': 'mcp-resource-cancel', 'prompt-get': 'mcp-prompt-cancel', completion: 'mcp-completion-cancel' } as const;

/** Topics the flow answers with, and where in its payload the answer is. */
export const ANSWER_TOPICS = ['mcp-resource-response', 'mcp-prompt-response', 'mcp-completion-response'] as const;
export type AnswerTopic = (typeof ANSWER_TOPICS)[number];

export function isAnswerTopic(topic: unknown): topic is AnswerTopic {
  return (ANSWER_TOPICS as readonly unknown[]).includes(topic);
}

export function requestMessage(executionId: string, call: ContentCall): ContentMessage {
  // A new object each time: the id goes last, onto it, instead of into a copy.
  const payload = requestPayload(call);
  payload['executionId'] = executionId;
  return { topic: REQUEST_TOPICS[call.kind], payload, mcp: call.context };
}

/** One per read, prompt or completion that ends without the flow's answer, like mcp-tool-cancel. */
export function cancelMessage(executionId: string, reason: CancelReason, call: ContentCall): ContentMessage {
  return { topic: CANCEL_TOPICS[call.kind], payload: { executionId, reason }, mcp: call.context };
}

/** The answer a response message carries, in the shape the request's handler reads. */
export function answerFrom(topic: AnswerTopic, payload: Record<string, unknown> | undefined): unknown {
  switch (topic) {
    case 'mcp-resource-response':
      return payload?.['contents'];
    case 'mcp-prompt-response':
      return payload?.['messages'];
    case 'mcp-completion-response':
      return { values: payload?.['values'], total: payload?.['total'], hasMore: payload?.['hasMore'] };
  }
}

function requestPayload(call: ContentCall): Record<string, unknown> {
  switch (call.kind) {
    case 'resource-read':
      return withRound({ uri: call.uri, variables: call.variables }, call.input);
    case 'prompt-get':
      return withRound({ name: call.name, arguments: call.arguments }, call.input);
    case 'completion':
      return { ref: call.ref, argument: call.argument, ...(call.arguments ? { context: { arguments: call.arguments } } : {}) };
  }
}

/** A later round's fields after the request's own (most requests have no round: nothing is copied). */
function withRound(payload: Record<string, unknown>, input: RoundInput | undefined): Record<string, unknown> {
  return input ? Object.assign(payload, roundFields(input)) : payload;
}
