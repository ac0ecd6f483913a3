import type { CallerIdentity } from '../../access/access-policy.js';
import type { ExecutionOutcome, RoundInput } from '../../execution/broker.js';
import type { RequestId } from '@modelcontextprotocol/server';
import type { Resumption, RoundTripStates } from '../round-trips.js';
import type { StateBinding } from '../../input/request-state.js';
import type { HangUpSignal } from '../../core/hang-up.js';

/** Who asked and for what; `msg.mcp` of the message the flow receives. */
export interface ContentContext extends CallerIdentity {
  readonly endpoint: string;
  readonly resource?: string;
  readonly prompt?: string;
  readonly protocolVersion: string;
  readonly requestId: string | number;
  /** Set on an edge for a read, prompt or completion a hub relayed: the hub endpoint it came through. */
  readonly relayedFrom?: string;
}

/**
 * Where a hub's read, prompt or completion of an edge's item goes: the site, and the item's name
 * there (its own URI or template text, or its prompt name). Never reaches a local flow.
 */
export interface ContentRelay {
  readonly site: string;
  readonly name: string;
}

/** What a completion is for, as the client named it. */
export type CompletionRef = { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string };

/** A read, prompt or completion the flow answers; the flow-server node turns it into a message. */
export type ContentCall =
  | { readonly kind: 'resource-read'; readonly uri: string; readonly variables: Record<string, string>; readonly context: ContentContext; readonly input?: RoundInput; readonly relay?: ContentRelay }
  | { readonly kind: 'prompt-get'; readonly name: string; readonly arguments: Record<string, string>; readonly context: ContentContext; readonly input?: RoundInput; readonly relay?: ContentRelay }
  | {
      readonly kind: 'completion';
      readonly ref: CompletionRef;
      readonly argument: { readonly name: string; readonly value: string };
      /** Values of the other arguments or variables the client already has, when it sent them. */
      readonly arguments?: Record<string, string>;
      readonly context: ContentContext;
      readonly relay?: ContentRelay;
    };

export type ContentKind = 'resource' | 'prompt' | 'completion';
export type ContentOutcome =
  | 'success'
  | 'error'
  | 'invalid_arguments'
  | 'unknown_resource'
  | 'unknown_prompt'
  /** The caller's groups do not include one the item allows; answered as an unknown item. */
  | 'not_allowed'
  | 'busy'
  | 'timeout'
  | 'stopped'
  | 'cancelled'
  /** The caller's token lacks a scope the item requires: answered with the step-up challenge (403). */
  | 'insufficient_scope'
  /** A 2026-07-28 read or prompt whose flow asked the client: the questions were its answer. */
  | 'input_required';

/** Told once per read, prompt or completion, whatever its outcome (telemetry, audit). */
export interface ContentFinished {
  readonly kind: ContentKind;
  readonly endpoint: string;
  /** The declared URI or template, or prompt name (never the concrete URI, whose values are the caller's); `unknown` when none matched. */
  readonly name: string;
  readonly outcome: ContentOutcome;
  readonly caller: CallerIdentity;
  readonly durationMs: number;
  readonly responseBytes: number;
  /** `flow` when the flow answered (or was asked to), `static` when the editor's content did, `unknown` when nothing matched. */
  readonly mode: 'flow' | 'static' | 'unknown';
}

/** What reads, prompts and completions take of their endpoint, on the SDK's path and the direct one alike. */
export interface ContentHandlerDependencies {
  readonly path: string;
  /** The endpoint's broker: same concurrency cap and time limits as tool calls. Throws CapacityError. */
  readonly begin: (call: ContentCall, timeoutMs: number, signal: HangUpSignal) => Promise<ExecutionOutcome>;
  readonly onFinished?: (event: ContentFinished) => void;
  /** Whether anyone reads `responseBytes` now (sizing costs a serialisation). */
  readonly measureResponses?: () => boolean;
  /** Seals the state of a 2026-07-28 read or prompt whose flow asks the client, and keeps it single-use (as for tools). */
  readonly roundStates: RoundTripStates;
}

/**
 * One read or prompt request as both of its paths see it: the SDK's handler context, or a plain
 * request the endpoint answers directly (direct-content.ts).
 */
export interface ContentExchange {
  readonly caller: CallerIdentity;
  /** Aborts when the client's connection closes before it has its answer. */
  readonly signal: HangUpSignal;
  readonly protocolVersion: string;
  /** The id the client gave the request. */
  readonly requestId: RequestId;
  /** Set on 2026-07-28 only: the retry of an earlier round the request may carry, and what its client can be asked. */
  readonly modern?: {
    resume(states: RoundTripStates, binding: () => StateBinding): Promise<Resumption>;
    declaredCapabilities(): Record<string, unknown>;
  };
}
