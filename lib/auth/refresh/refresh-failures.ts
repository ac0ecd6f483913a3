import { invalidGrant, OAuthFailure, temporarilyUnavailable } from '../oauth-error.js';
import { REFRESH_TIMING } from './refresh-defaults.js';

/** The client-facing refusals of the refresh grant; descriptions never say more than the error does. */

export const unknownToken = () => invalidGrant('The refresh token is invalid, expired or revoked.', 'unknown');
export const sessionEnded = (reason: string) => invalidGrant('The refresh token is invalid, expired or revoked.', reason);

export function invalidScope(): OAuthFailure {
  const failure = new OAuthFailure(400, 'invalid_scope', 'The requested scope exceeds the scope originally granted.');
  failure.reason = 'scope_widened';
  return failure;
}

/** 503 with Retry-After: the provider's when it gave a valid one, else ours. */
export function unavailable(reason: string, retryAfterSeconds?: number): OAuthFailure {
  return temporarilyUnavailable(validRetryAfter(retryAfterSeconds) ?? REFRESH_TIMING.retryAfterSeconds, reason);
}

/** An UpstreamRefresher is an interface: whatever it reports is checked again before it becomes a header. */
export function validRetryAfter(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= REFRESH_TIMING.maxRetryAfterSeconds
    ? value
    : undefined;
}
