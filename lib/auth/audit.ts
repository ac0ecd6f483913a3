/**
 * Security events, one JSON object each, written to the Node-RED log by the node that handled them.
 * Fields are chosen so a line never grants anything: no tokens, codes, PKCE values, secrets or
 * tool arguments; sessions appear as a 12-character hash.
 */
import type { CallFinished } from '../mcp/mcp-endpoint.js';
import type { RefreshAuditEvent } from './refresh/refresh-audit.js';
import type { RegistrationAuditEvent, RevocationAuditEvent } from './registration/registration-audit.js';

export type AuditEvent =
  | RefreshAuditEvent
  | RegistrationAuditEvent
  | RevocationAuditEvent
  | { event: 'oauth.sign_in'; outcome: 'success' | 'refused'; reason?: string; subject?: string; client?: string; endpoint?: string }
  | { event: 'oauth.token'; outcome: 'success' | 'refused'; reason?: string; subject?: string; client?: string; session?: string }
  | { event: 'mcp.auth'; reason: string; subject?: string; client?: string; ip?: string; endpoint: string }
  | { event: 'mcp.tool_call'; outcome: string; tool: string; subject?: string; client?: string; session?: string; durationMs: number }
  | { event: 'mcp.command'; command: string; endpoint: string }
  | { event: 'oauth.consent'; outcome: 'withdrawn'; subject: string; client: string };

export type AuditSink = (event: AuditEvent) => void;

/**
 * The `mcp.tool_call` line for a finished call, or undefined when there is nothing to audit: refused
 * callers are already audited as `mcp.auth` (or, without a token, deliberately not at all).
 */
export function toolCallAudit(call: CallFinished): AuditEvent | undefined {
  if (call.outcome === 'unauthenticated' || call.outcome === 'forbidden') return undefined;
  return {
    event: 'mcp.tool_call',
    outcome: call.outcome,
    tool: call.tool,
    ...(call.caller.subject ? { subject: call.caller.subject } : {}),
    ...(call.caller.client ? { client: call.caller.client } : {}),
    ...(call.caller.session ? { session: call.caller.session } : {}),
    durationMs: Math.round(call.durationMs),
  };
}

export function formatAuditLine(event: AuditEvent): string {
  return JSON.stringify({ ...event, time: new Date().toISOString() });
}
