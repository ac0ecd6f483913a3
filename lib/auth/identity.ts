// Below bridge/ and refresh/: both store and check who signed in, so neither of them owns it.

/** Who signed in upstream, as far as the endpoint's group check and msg.mcp need. */
export interface SignedInIdentity {
  readonly subject: string;
  readonly email?: string;
  readonly groups: readonly string[];
}
