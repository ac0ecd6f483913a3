import type { AccessPolicy } from '../../access/access-policy.js';
import type { Logger } from '../../core/logger.js';
import type { ExecutionRequest } from '../../execution/broker.js';
import type { CancelReason } from '../../execution/cancellation.js';
import type { RequestStateSealer } from '../../input/request-state.js';
import type { Store } from '../../storage/store.js';
import type { TaskLimits } from '../../tasks/task-manager.js';
import type { CallFinished, ExecutionContext } from '../calls/call-types.js';
import type { ContentCall, ContentFinished } from '../content/content-types.js';

/** What one endpoint is built from: its settings from the flow-server node, and the node's way to its flow. */
export interface McpEndpointOptions {
  readonly serverName: string;
  readonly path: string;
  readonly access: AccessPolicy;
  readonly maxInFlight: number;
  /** Open `subscriptions/listen` streams this endpoint holds at most; the next is refused (-32603). */
  readonly maxStreams?: number;
  readonly logger: Logger;
  /** Told once per tools/call, whatever its outcome (audit log, telemetry). Must not throw or block. */
  readonly onCallFinished?: (event: CallFinished) => void;
  /** Whether anyone reads `responseBytes` now (sizing a large result costs a JSON serialisation). */
  readonly measureResponses?: () => boolean;
  /** Hands one call to the flow. Must not block; the answer comes back through `settle`. */
  readonly execute: (request: ExecutionRequest, context: ExecutionContext) => void;
  /** Told once when a call the flow is working on ends without its answer (see CancelReason). */
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: ExecutionContext) => void;
  /** Hands one resource read, prompt or completion to the flow, like `execute`. */
  readonly executeContent?: (executionId: string, call: ContentCall) => void;
  /** Where task records live (the endpoint's storage) and the endpoint's task limits. */
  readonly tasks?: { readonly store: Store; readonly limits: TaskLimits };
  /** Told once when a read, prompt or completion the flow is working on ends without its answer. */
  readonly onContentAbandoned?: (executionId: string, reason: CancelReason, call: ContentCall) => void;
  /** Told once per resources/read, prompts/get and completion/complete, whatever the outcome. */
  readonly onContentFinished?: (event: ContentFinished) => void;
  /** Whether anyone reads a read's, prompt's or completion's `responseBytes` now. */
  readonly measureContentResponses?: () => boolean;
  /**
   * Seals the `requestState` of 2026-07-28 calls whose flow asks the client; instances that share
   * its key resume each other's calls. A key of this process alone when absent.
   */
  readonly requestStates?: RequestStateSealer;
  /** Where a 2025-era client's answer to a flow's question crosses to the instance that asked. */
  readonly answersStore?: Store;
  /**
   * Whether the hot requests — plain tool calls, resource reads and prompts of both eras, the first
   * page of a tools/list —
   * are answered directly rather than through the SDK (default true). Both paths give the same
   * answers; tests turn it off to compare them.
   */
  readonly directAnswers?: boolean;
}
