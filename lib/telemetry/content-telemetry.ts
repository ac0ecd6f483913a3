import type { ContentFinished, ContentKind } from '../mcp/content/content-types.js';
import type { TelemetryFields } from './telemetry-fields.js';

/**
 * The payload of one telemetry message for a resource read, prompt or completion: the fields it
 * shares with the tool event, and `name` where a tool event has `tool`.
 */
export interface ContentTelemetry extends TelemetryFields {
  readonly kind: ContentKind;
  /** The declared URI or URI template (never the URI read, whose values are the caller's), or the prompt name; `unknown` when nothing matched. */
  readonly name: string;
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
