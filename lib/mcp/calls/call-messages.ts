import type { ExecutionRequest } from '../../execution/broker.js';
import type { CancelReason } from '../../execution/cancellation.js';
import { roundFields } from '../../input/round-fields.js';
import type { ExecutionContext } from './call-types.js';

/**
 * What the mcp-flow-server sends for a tool call: topic, payload and `msg.mcp`. A type, not an
 * interface, so that it is a Node-RED message as it is.
 */
export type ToolMessage = {
  readonly topic: 'mcp-tool-execute' | 'mcp-tool-cancel';
  readonly payload: Record<string, unknown>;
  readonly mcp: ExecutionContext;
};

/**
 * The `mcp-tool-execute` message of one round. Optional members are assigned, not spread from
 * temporary objects: every call sends one.
 */
export function toolExecuteMessage(request: ExecutionRequest, context: ExecutionContext): ToolMessage {
  const payload: Record<string, unknown> = {
    toolName: request.toolName,
    arguments: request.arguments,
    executionId: request.executionId,
    progressToken: request.progressToken ?? false,
  };
  if (request.logLevel !== undefined) payload['logLevel'] = request.logLevel;
  if (request.clientCapabilities !== undefined) payload['clientCapabilities'] = request.clientCapabilities;
  if (request.input !== undefined) Object.assign(payload, roundFields(request.input));
  return { topic: 'mcp-tool-execute', payload, mcp: context };
}

/** The `mcp-tool-cancel` message for a call that ended without the flow's answer (once per call). */
export function toolCancelMessage(executionId: string, reason: CancelReason, context: ExecutionContext): ToolMessage {
  return { topic: 'mcp-tool-cancel', payload: { executionId, reason }, mcp: context };
}
