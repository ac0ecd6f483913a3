import { DEFAULTS } from '../core/defaults.js';
import type { ToolTelemetry } from './tool-telemetry.js';

/** One finished call as the editor's sidebar shows it: no arguments, no result, no e-mail. */
export interface RecentCall {
  /** When the call finished, as epoch milliseconds. */
  readonly at: number;
  readonly tool: string;
  /** `editor` for a Try-it call, else the caller's client label (`claude`, `codex`, `local` …). */
  readonly caller: string;
  readonly status: string;
  readonly durationMs: number;
}

/**
 * The last calls of each endpoint, newest first, in memory only, keyed by the endpoint's node id so
 * the history outlives a deploy that recreates the node (and its runtime). Both bounds are fixed so
 * a busy endpoint, or many endpoints, cannot grow it: `perEndpoint` calls each, `endpoints` keys at
 * most (the one called longest ago is dropped first).
 */
export class RecentCalls {
  private readonly byEndpoint = new Map<string, RecentCall[]>();
  private readonly perEndpoint: number;
  private readonly endpoints: number;

  constructor(perEndpoint: number, endpoints: number) {
    this.perEndpoint = Math.max(1, perEndpoint);
    this.endpoints = Math.max(1, endpoints);
  }

  record(key: string, event: ToolTelemetry, at: number = Date.now()): void {
    let calls = this.byEndpoint.get(key);
    if (calls) {
      // Re-inserted so the Map's order is "least recently called first".
      this.byEndpoint.delete(key);
    } else {
      calls = [];
      if (this.byEndpoint.size >= this.endpoints) this.byEndpoint.delete(this.byEndpoint.keys().next().value!);
    }
    this.byEndpoint.set(key, calls);
    calls.unshift({ at, tool: event.tool, caller: event.client, status: event.status, durationMs: event.durationMs });
    if (calls.length > this.perEndpoint) calls.length = this.perEndpoint;
  }

  /** Newest first; a copy, so the caller may keep it. */
  of(key: string): RecentCall[] {
    return [...(this.byEndpoint.get(key) ?? [])];
  }

  /** An endpoint removed from the flows takes its history with it. */
  forget(key: string): void {
    this.byEndpoint.delete(key);
  }
}

/**
 * Process-wide, like the sidebar's endpoint directory: a Full deploy recreates every node and each
 * runtime's telemetry bus, but an endpoint node with the same id keeps its calls.
 */
export const recentCalls = new RecentCalls(DEFAULTS.recentCallsPerEndpoint, DEFAULTS.recentCallsEndpoints);
