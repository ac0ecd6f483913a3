import type { ContentFinished, ContentKind } from '../mcp/content/content-handlers.js';

/**
 * The payload of one telemetry message for a resource read, prompt or completion. It has the tool
 * event's fields where they mean the same (so one writer can take both, told apart by `kind`), and
 * `name` where a tool event has `tool`.
 */
export interface ContentTelemetry {
  readonly kind: ContentKind;
  readonly endpoint: string;
  /** The declared URI or URI template (never the URI read, whose values are the caller's), or the prompt name; `unknown` when nothing matched. */
  readonly name: string;
  readonly user: string;
  readonly client: string;
  /** `flow` when the flow answered, `static` when the editor's content or list did, `unknown` when nothing matched. */
  readonly mode: string;
  readonly status: string;
  readonly durationMs: number;
  readonly responseBytes: number;
}

export function contentTelemetry(event: ContentFinished): ContentTelemetry {
  return {
    kind: event.kind,
    endpoint: event.endpoint,
    name: event.name,
    user: event.caller.email ?? event.caller.subject ?? 'unknown',
    client: event.caller.client ?? 'unknown',
    mode: event.mode,
    status: event.outcome,
    durationMs: Math.round(event.durationMs * 1000) / 1000,
    responseBytes: event.responseBytes,
  };
}
