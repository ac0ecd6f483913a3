/** What the signed-in user is asked to approve: one MCP client using one endpoint with these scopes. */
export interface ConsentRequest {
  readonly clientId: string;
  /** As the client states it (CIMD `client_name` or the registration's); never trusted, always escaped. */
  readonly clientName?: string;
  /**
   * True for a dynamically registered (RFC 7591) client: its name is self-asserted, so it is never
   * trusted and never skips the prompt, even when the user approved it before.
   */
  readonly registeredClient: boolean;
  readonly redirectUri: string;
  readonly endpointPath: string;
  readonly endpointName?: string;
  readonly scope: readonly string[];
  readonly subject: string;
  readonly email?: string;
}

export interface ConsentPolicy {
  /** How long an approval is remembered per user and client; 0 asks every time. */
  readonly rememberSeconds: number;
  /**
   * Pinned or allow-listed CIMD client ids the admin marked trusted: no prompt. Ignored for
   * registered clients, whatever their id.
   */
  readonly trustedClientIds: ReadonlySet<string>;
}

export type ConsentDecision = 'approve' | 'deny';

export interface ConsentOutcome<P> {
  readonly decision: ConsentDecision;
  /** Exactly what was passed to prompt(), after a JSON round trip through storage. */
  readonly pending: P;
  readonly request: ConsentRequest;
}

/** A pending consent lives as long as the sign-in state around it. */
export const CONSENT_TTL_SECONDS = 300;

export const CONSENT_KINDS = { pending: 'consent', approval: 'consent-approval' } as const;

export function consentPath(slug: string): string {
  return `/oauth/${slug}/consent`;
}
