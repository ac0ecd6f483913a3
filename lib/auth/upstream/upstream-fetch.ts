import type { CustomFetch } from 'openid-client';
import { parseRetryAfter, UpstreamError } from './upstream-error.js';

/**
 * The fetch openid-client uses for every provider request (discovery, JWKS, token, UserInfo).
 * It bounds each request to `timeoutMs` (openid-client's own timeout only has whole seconds) and
 * turns "the provider is not there" into one recognisable error before openid-client sees it:
 * network failures, timeouts, 429 and 5xx become UpstreamError `unavailable`.
 */
export function createUpstreamFetch(timeoutMs: number): CustomFetch {
  return async (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal } as RequestInit);
    } catch (error) {
      throw new UpstreamError('unavailable', timeout.aborted
        ? `identity provider did not answer within ${timeoutMs} ms`
        : `identity provider could not be reached${networkCode(error)}`);
    }
    if (response.status === 429 || response.status >= 500) {
      const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
      // Nobody reads this body; release the connection instead of leaving it to the GC.
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError('unavailable', `identity provider answered HTTP ${response.status}`, { retryAfterSeconds });
    }
    return response;
  };
}

/** ` (ECONNREFUSED)` and the like: enough to diagnose, nothing the provider sent. */
function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
}
