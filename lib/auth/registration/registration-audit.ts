/**
 * Audit events of registration and revocation, in the shape of lib/auth/audit.ts (add them to its
 * AuditEvent union). Like every audit line they grant nothing: client ids of public clients are not
 * secrets; tokens never appear, sessions only as their 12-character label.
 */
export type RegistrationAuditEvent = {
  event: 'oauth.register';
  outcome: 'success' | 'refused';
  /** For refusals: an RFC 7591 error code, `rate_limited_address`, `rate_limited_namespace` or `storage_unavailable`. */
  reason?: string;
  clientId?: string;
  /** The client's label (`registered:<name>` or `registered`), as in its later audit lines. */
  client?: string;
  clientName?: string;
  ip?: string;
};

export type RevocationAuditEvent = {
  event: 'oauth.revoke';
  /** `revoked`: a token was found and revoked; `not_found`: unknown, expired or another client's token. */
  outcome: 'revoked' | 'not_found' | 'refused';
  reason?: string;
  tokenType?: 'access_token' | 'refresh_token';
  subject?: string;
  client?: string;
  session?: string;
};
