import type { IncomingMessage, ServerResponse } from 'node:http';

/** Who is calling, as far as the endpoint's access mode can tell. OAuth fills the optional fields. */
export interface CallerIdentity {
  readonly subject?: string;
  readonly email?: string;
  readonly groups?: readonly string[];
  /** A short, bounded client label (`claude`, `codex`, a host), never a raw user agent. */
  readonly client?: string;
  /** 12-character hash of the sign-in session (audit correlation); never a token. */
  readonly session?: string;
  /**
   * The scopes the caller's token carries and its groups still allow (OAuth): items with *Required
   * scopes* check them. Never handed to the flow.
   */
  readonly scopes?: readonly string[];
  /**
   * Set only for a call started from the editor's MCP sidebar ("Try it"): the Node-RED user who ran
   * it (`null` when the editor has no sign-in), and whether they confirmed running it on an OAuth
   * endpoint limited to groups. Such a caller never has a subject, e-mail or groups.
   */
  readonly editor?: { readonly user: string | null; readonly groupsOverridden?: true };
}

export type AccessDecision =
  | {
      readonly allowed: true;
      readonly caller: CallerIdentity;
      /** Set when the policy had to read the JSON-RPC body to decide; the SDK must not read it again. */
      readonly parsedBody?: unknown;
    }
  | {
      readonly allowed: false;
      readonly reject: (res: ServerResponse) => void;
      /** Why, when it was about who is calling (telemetry counts these as failed calls). */
      readonly refusal?: 'unauthenticated' | 'forbidden';
      readonly parsedBody?: unknown;
    };

/**
 * The seam between the MCP endpoint and how callers get in. Local access checks where a request
 * comes from; OAuth access checks a bearer token and groups. The endpoint asks
 * before the SDK sees the body and never knows which policy it has.
 */
export interface AccessPolicy {
  check(req: IncomingMessage): AccessDecision | Promise<AccessDecision>;
  /**
   * Answers a request for an item whose *Required scopes* the caller's token lacks (`missing`): the
   * step-up challenge a client reacts to by signing in again for more. Only OAuth access has one.
   */
  refuseScope?(res: ServerResponse, caller: CallerIdentity, missing: readonly string[]): void;
}
