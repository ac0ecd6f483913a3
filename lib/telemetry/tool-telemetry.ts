import type { CallFinished } from '../mcp/calls/call-types.js';
import type { StorePrimary } from '../storage/primary-watch.js';
import type { TelemetryFields } from './telemetry-fields.js';

/** The payload of one `mcp-tool-telemetry` message: flat, typed, bounded label values. */
export interface ToolTelemetry extends TelemetryFields {
  /** Always `tool`; reads, prompts and completions have their own kinds (content-telemetry.ts). */
  readonly kind: 'tool';
  readonly tool: string;
  readonly scannedNodes: number;
  readonly cached: boolean;
  /**
   * How many rounds of questions the flow asked the client (`mcp-tool-input`); 0 when it asked none,
   * so a metric store gets a number on every call. A 2026-07-28 call answered with its questions
   * (status `input_required`) counts the rounds so far.
   */
  readonly inputRounds: number;
  /** The edge site a relayed tool's call went to; '' for the tools of this Node-RED. */
  readonly site: string;
  /**
   * What the endpoint's storage talks to: `standalone` (one Redis URL), `sentinel-primary`,
   * `cluster`, `memory`, or '' when the endpoint has no storage.
   */
  readonly redisRole: string;
  /** Failovers the storage followed since it opened (a primary, or a cluster's primary, replaced). */
  readonly redisSwitches: number;
}

/** The parts of a store the telemetry reads (memory or Redis, and where a Redis store writes). */
export interface StorageShape {
  readonly mode: 'memory' | 'redis';
  readonly primary?: StorePrimary | undefined;
}

export function toolTelemetry(call: CallFinished, storage?: StorageShape): ToolTelemetry {
  return {
    kind: 'tool',
    endpoint: call.endpoint,
    tool: call.tool,
    user: call.caller.email ?? call.caller.subject ?? (call.caller.editor ? `editor:${call.caller.editor.user ?? 'anonymous'}` : 'unknown'),
    client: call.caller.client ?? 'unknown',
    mode: call.mode,
    status: call.outcome,
    durationMs: Math.round(call.durationMs * 1000) / 1000,
    responseBytes: call.responseBytes,
    scannedNodes: call.scannedNodes ?? 0,
    cached: call.cached ?? false,
    inputRounds: call.inputRounds ?? 0,
    site: call.site ?? '',
    redisRole: redisRole(storage),
    redisSwitches: storage?.primary?.switches ?? 0,
  };
}

function redisRole(storage: StorageShape | undefined): string {
  if (!storage) return '';
  if (storage.mode === 'memory') return 'memory';
  if (!storage.primary) return 'standalone';
  return storage.primary.role === 'cluster' ? 'cluster' : 'sentinel-primary';
}
