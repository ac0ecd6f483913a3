// Below bridge/ and registration/: the bridge asks a ClientResolver, and the lookup of registered
// clients refuses one with ClientRejected.

/** The metadata the bridge needs about an MCP client (from a CIMD document or a pinned copy). */
export interface KnownClient {
  readonly clientId: string;
  readonly clientName?: string;
  /** Registered through dynamic client registration rather than identified by a metadata document. */
  readonly registered?: boolean;
  readonly redirectUriAllowed: (redirectUri: string) => boolean;
  /**
   * May errors be sent to this (allowed) redirect URI before the user approved the client? True for
   * metadata-document clients (their host is allow-listed, or the admin pinned them) and for
   * registered clients redirecting to loopback or to an allow-listed https host. Anyone may register
   * any https URI, so any other registered redirect would make the bridge an open redirector
   * (RFC 9700 §4.11.2): its errors are shown on a page of the bridge instead.
   */
  readonly redirectTrusted: (redirectUri: string) => boolean;
}

export interface ClientResolver {
  /** Throws ClientRejected (with a description safe to show) when the client may not sign in. */
  resolve(clientId: string): Promise<KnownClient>;
}

export class ClientRejected extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'ClientRejected';
  }
}
