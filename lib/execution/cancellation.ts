import { isPlainObject } from '../core/is-plain-object.js';

/**
 * Why a call ended without the flow's answer, as `mcp-tool-cancel` tells the flow:
 * - `cancelled`: the client cancelled it (`notifications/cancelled`);
 * - `disconnected`: the client hung up before the answer (on 2026-07-28 this is how a client cancels);
 * - `timeout`: the tool's time limit or maximum total duration passed;
 * - `stopped`: the endpoint was stopped, restarted, redeployed or removed.
 */
export type CancelReason = 'cancelled' | 'disconnected' | 'timeout' | 'stopped';

/**
 * The request id a `notifications/cancelled` names, or undefined when the body is something else
 * (or a malformed cancel, which the spec says to ignore).
 */
export function cancelledRequestId(body: unknown): string | number | undefined {
  if (!isPlainObject(body)) return undefined;
  const message = body as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  if (message.method !== 'notifications/cancelled' || message.id !== undefined) return undefined;
  const requestId = message.params?.requestId;
  return typeof requestId === 'string' || (typeof requestId === 'number' && Number.isFinite(requestId)) ? requestId : undefined;
}
