/**
 * The refresh grant's audit outcomes (reference §Audit Log). Defined here until lib/auth/audit.ts
 * takes it into its AuditEvent union; the shape already fits that union.
 * - success: rotated, with the provider's confirmation;
 * - transient: 503, session kept (provider or storage unreachable, another request still rotating);
 * - provider_config: 503, session kept, the provider refused the bridge's client credentials;
 * - unknown: the refresh token is not (or no longer) known: never issued, expired, session ended;
 * - revoked: the session was ended (binding mismatch, provider refusal, identity/policy failure, revocation);
 * - replay: a rotated token came back outside grace (or not as an identical retry): session ended;
 * - grace_reuse: an identical retry within grace got the same pair again.
 */
export type RefreshOutcome = 'success' | 'transient' | 'provider_config' | 'unknown' | 'revoked' | 'replay' | 'grace_reuse';

export interface RefreshAuditEvent {
  readonly event: 'oauth.refresh';
  readonly outcome: RefreshOutcome;
  /** A finer cause (`client_mismatch`, `upstream_missing_claim`...): codes only, never a value. */
  readonly reason?: string;
  readonly subject?: string;
  readonly client?: string;
  /** The 12-character session label, never the session id. */
  readonly session?: string;
}

export type RefreshAuditSink = (event: RefreshAuditEvent) => void;
