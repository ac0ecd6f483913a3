/**
 * Security events, one JSON object each, written to the Node-RED log by the node that handled them.
 * Fields are chosen so a line never grants anything: no tokens, codes, PKCE values, secrets or
 * tool arguments; sessions appear as a 12-character hash.
 */
import type { Mutable } from '../core/mutable.js';
import type { ContentFinished } from '../mcp/content/content-types.js';
import type { CallFinished } from '../mcp/calls/call-types.js';
import type { RefreshAuditEvent } from './refresh/refresh-audit.js';
import type { RegistrationAuditEvent, RevocationAuditEvent } from './registration/registration-audit.js';

export type AuditEvent =
  | RefreshAuditEvent
  | RegistrationAuditEvent
  | RevocationAuditEvent
  /** `narrowed`: signed in, without the scopes issued by group that the user is not in a group for (`scopes`). */
  | { event: 'oauth.sign_in'; outcome: 'success' | 'refused' | 'narrowed'; reason?: string; subject?: string; client?: string; endpoint?: string; scopes?: string }
  | { event: 'oauth.token'; outcome: 'success' | 'refused'; reason?: string; subject?: string; client?: string; session?: string }
  /** A refused request; for `insufficient_scope`, `scopes` names the scopes the item needed and the token lacked. */
  | { event: 'mcp.auth'; reason: string; subject?: string; client?: string; ip?: string; endpoint: string; scopes?: string }
  | {
      event: 'mcp.tool_call';
      outcome: string;
      tool: string;
      subject?: string;
      client?: string;
      session?: string;
      /** A Try-it call from the editor: the Node-RED user, and whether endpoint groups were overridden. */
      editor?: { user: string | null; groupsOverridden?: true };
      /** The edge site a relayed call went to. */
      site?: string;
      durationMs: number;
    }
  | { event: 'mcp.resource_read'; outcome: string; resource: string; subject?: string; client?: string; session?: string; durationMs: number }
  | { event: 'mcp.prompt_get'; outcome: string; prompt: string; subject?: string; client?: string; session?: string; durationMs: number }
  | { event: 'mcp.completion'; outcome: string; ref: string; subject?: string; client?: string; session?: string; durationMs: number }
  | { event: 'mcp.command'; command: string; endpoint: string }
  | { event: 'oauth.consent'; outcome: 'withdrawn'; subject: string; client: string };

export type AuditSink = (event: AuditEvent) => void;

/**
 * The `mcp.tool_call` line for a finished call, or undefined when there is nothing to audit: refused
 * callers are already audited as `mcp.auth` (or, without a token, deliberately not at all).
 */
export function toolCallAudit(call: CallFinished): AuditEvent | undefined {
  if (call.outcome === 'unauthenticated' || call.outcome === 'forbidden' || call.outcome === 'insufficient_scope') return undefined;
  // Member by member in the line's order, not spread from temporary objects: every signed-in call writes one.
  // durationMs is set last, where the line shows it.
  const line = { event: 'mcp.tool_call', outcome: call.outcome, tool: call.tool } as Mutable<Extract<AuditEvent, { event: 'mcp.tool_call' }>>;
  const { subject, client, session, editor } = call.caller;
  if (subject) line.subject = subject;
  if (client) line.client = client;
  if (session) line.session = session;
  if (editor) line.editor = { ...editor };
  if (call.site) line.site = call.site;
  line.durationMs = Math.round(call.durationMs);
  return line;
}

/**
 * The audit line for a finished resource read, prompt or completion on an OAuth endpoint. It names
 * the declared URI or template (not the URI read: its values are the caller's input, like tool
 * arguments) or the prompt; completion values and prompt arguments are never written.
 */
export function contentAudit(event: ContentFinished): AuditEvent | undefined {
  // Refused for its scopes: already audited as `mcp.auth` with reason insufficient_scope.
  if (event.outcome === 'insufficient_scope') return undefined;
  const who = {
    ...(event.caller.subject ? { subject: event.caller.subject } : {}),
    ...(event.caller.client ? { client: event.caller.client } : {}),
    ...(event.caller.session ? { session: event.caller.session } : {}),
    durationMs: Math.round(event.durationMs),
  };
  switch (event.kind) {
    case 'resource':
      return { event: 'mcp.resource_read', outcome: event.outcome, resource: event.name, ...who };
    case 'prompt':
      return { event: 'mcp.prompt_get', outcome: event.outcome, prompt: event.name, ...who };
    case 'completion':
      return { event: 'mcp.completion', outcome: event.outcome, ref: event.name, ...who };
  }
}

/**
 * The event as one JSON line with its time last. Every signed-in call writes one, so the time is
 * appended to the event's own JSON (an object, so it ends in `}`) instead of copying the event.
 */
export function formatAuditLine(event: AuditEvent): string {
  return `${JSON.stringify(event).slice(0, -1)},"time":"${isoNow()}"}`;
}

let isoMillisecond = -1;
let isoText = '';

/** The time now as ISO 8601, formatted once per millisecond (under load, many lines share one). */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMillisecond) {
    isoMillisecond = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}
