/**
 * Security events, one JSON object each, written to the Node-RED log by the node that handled them.
 * Fields are chosen so a line never grants anything: no tokens, codes, PKCE values, secrets or
 * tool arguments; sessions appear as a 12-character hash.
 */
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
  | { event: 'mcp.command'; command: string; endpoint: string };

export type AuditSink = (event: AuditEvent) => void;

export function formatAuditLine(event: AuditEvent): string {
  return JSON.stringify({ ...event, time: new Date().toISOString() });
}
