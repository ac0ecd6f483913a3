import { McpPaletteError } from '../../core/errors.js';

/**
 * Why a sign-in with the upstream provider failed, as the bridge needs to react to it:
 * - `provider_error`: the provider answered the authorization request with an error (the user
 *   declined, the app is not assigned, ...); `providerError` holds its code for relaying to the client.
 * - `invalid_response`: the callback or a provider response does not fit this sign-in (state,
 *   issuer, code rejected by the token endpoint, UserInfo for another subject, malformed claims).
 * - `invalid_token`: the ID token failed verification (signature, issuer, audience, nonce, expiry).
 * - `tenant_mismatch`: a Microsoft ID token from another tenant.
 * - `missing_claim`: a claim the bridge cannot work without is absent (e.g. no Microsoft app role).
 * - `unavailable`: network failure, timeout, HTTP 429 or 5xx; worth retrying later (503).
 * - `provider_config`: the provider refuses this configuration (client authentication failed,
 *   discovery document missing or for another issuer); an administrator must act, retrying will not help.
 */
export type UpstreamErrorReason =
  | 'provider_error'
  | 'invalid_response'
  | 'invalid_token'
  | 'tenant_mismatch'
  | 'missing_claim'
  | 'unavailable'
  | 'provider_config';

export interface UpstreamErrorDetails {
  /** Only with `provider_error`: the provider's `error` code, restricted to RFC 6749 characters. */
  readonly providerError?: string | undefined;
  readonly providerErrorDescription?: string | undefined;
  /** Only with `unavailable`: the provider's validated Retry-After, in seconds. */
  readonly retryAfterSeconds?: number | undefined;
}

/**
 * Thrown by the upstream client. The message is safe to log: it names what failed, never a token,
 * code, verifier or secret, and never the provider's response body.
 */
export class UpstreamError extends McpPaletteError {
  readonly reason: UpstreamErrorReason;
  readonly providerError: string | undefined;
  readonly providerErrorDescription: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(reason: UpstreamErrorReason, message: string, details: UpstreamErrorDetails = {}) {
    super(`upstream_${reason}`, message, { reason });
    this.name = 'UpstreamError';
    this.reason = reason;
    this.providerError = details.providerError;
    this.providerErrorDescription = details.providerErrorDescription;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

export function isUpstreamError(value: unknown): value is UpstreamError {
  return value instanceof UpstreamError;
}

/** The first UpstreamError in a `cause` chain: openid-client wraps what our fetch throws. */
export function findUpstreamError(error: unknown): UpstreamError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth += 1) {
    if (current instanceof UpstreamError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

// RFC 6749 section 4.1.2.1: error and error_description use %x20-21 / %x23-5B / %x5D-7E.
const ERROR_CODE = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
const ERROR_TEXT = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,256}$/;

/** The provider's error code, or `server_error` when it is not something we may echo to a client. */
export function safeErrorCode(value: string | null | undefined): string {
  return value && ERROR_CODE.test(value) ? value : 'server_error';
}

export function safeErrorDescription(value: string | null | undefined): string | undefined {
  return value && ERROR_TEXT.test(value) ? value : undefined;
}

/** Longest wait we pass on; a provider asking for more is treated as not saying. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/** Retry-After as delta-seconds or HTTP-date (RFC 9110 10.2.3), validated and bounded. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) {
    const seconds = Number(text);
    return seconds <= MAX_RETRY_AFTER_SECONDS ? seconds : undefined;
  }
  // Only the IMF-fixdate form; Date.parse alone would accept far looser text.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const seconds = Math.max(0, Math.ceil((at - now) / 1000));
  return seconds <= MAX_RETRY_AFTER_SECONDS ? seconds : undefined;
}
