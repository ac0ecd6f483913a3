import { parseJsonOrUndefined } from '../core/parse-json.js';
import type { SignedInIdentity } from './identity.js';

// Below bridge/, refresh/ and registration/: the bridge writes these records, and refreshed tokens
// and revocation write and delete access grants of the same kind.

/** Stored between /authorize and /callback, keyed by the upstream `state`. */
export interface PendingSignIn {
  readonly clientId: string;
  readonly clientName?: string;
  /** A dynamically registered client (its name is self-asserted; consent is always asked). */
  readonly registeredClient?: boolean;
  readonly redirectUri: string;
  /** KnownClient.redirectTrusted for redirectUri; absent (an older record) counts as untrusted. */
  readonly redirectTrusted?: boolean;
  readonly codeChallenge: string;
  readonly clientState?: string;
  readonly resource: string;
  readonly scope: readonly string[];
  readonly upstream: { readonly state: string; readonly nonce: string; readonly codeVerifier: string };
  /** SHA-256 of the browser cookie; the callback must come from the browser that started. */
  readonly browserBinding: string;
}

/** Stored between /callback and /token, keyed by the code's hash; taken exactly once. */
export interface IssuedCode {
  readonly clientId: string;
  readonly client: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly scope: readonly string[];
  readonly identity: SignedInIdentity;
  /** The provider's refresh token, sealed by the refresh service (never stored in clear). */
  readonly upstreamRefresh?: { readonly sealed: string; readonly binding: string };
  /** Epoch ms: when the code expires (a failed exchange puts it back for no longer than that). */
  readonly expiresAt?: number;
}

/** Stored per access token, keyed by the token's hash. */
export interface AccessGrant {
  readonly clientId: string;
  readonly client: string;
  readonly resource: string;
  readonly scope: readonly string[];
  readonly identity: SignedInIdentity;
  /** Hash label shared by every token of one sign-in (audit correlation, later refresh). */
  readonly session: string;
  readonly expiresAt: number;
}

export const RECORD_KINDS = { pending: 'pending', code: 'code', access: 'access' } as const;

export function encodeRecord(record: object): string {
  return JSON.stringify(record);
}

export function decodeRecord<T>(text: string | undefined): T | undefined {
  return text === undefined ? undefined : (parseJsonOrUndefined(text) as T | undefined);
}
