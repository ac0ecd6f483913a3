/** How a registered redirect URI reaches the client; decides the application type. */
export type RedirectKind = 'https' | 'loopback' | 'custom';

export type RedirectCheck = { readonly ok: true; readonly kind: RedirectKind } | { readonly ok: false; readonly why: string };

// The loopback hosts of RFC 8252 §7.3 / §8.3, written exactly so (lower case, no other spelling of
// 127.0.0.1): the authorization endpoint's any-port rule matches them textually.
const LOOPBACK_PREFIX = /^http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost)(?::[0-9]{1,5})?(?:[/?]|$)/;

/**
 * Checks one redirect URI a client asks to register. Accepted are https URLs, plain http back to
 * this machine (127.0.0.1, [::1] or localhost, any port: RFC 8252 §7.3) and private-use schemes the
 * admin allowed (RFC 8252 §7.1: Cursor's `cursor://anysphere.cursor-mcp/oauth/callback`). Never a
 * fragment, credentials, whitespace or control characters: the URI is stored and later compared byte
 * for byte. `why` is safe to show to the client; it never repeats the URI.
 */
export function checkRedirectUri(value: unknown, customSchemes: readonly string[], maxLength: number): RedirectCheck {
  if (typeof value !== 'string' || value.length === 0) return refused('must be a non-empty string');
  if (value.length > maxLength) return refused(`must be at most ${maxLength} characters`);
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(value)) return refused('must not contain whitespace, control characters or backslashes');
  if (value.includes('#')) return refused('must not contain a fragment');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refused('must be an absolute URI');
  }
  if (url.username !== '' || url.password !== '') return refused('must not contain user information');

  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') {
    if (url.hostname === '') return refused('must name a host');
    return { ok: true, kind: 'https' };
  }
  if (scheme === 'http') {
    const port = url.port === '' ? 0 : Number(url.port);
    if (!LOOPBACK_PREFIX.test(value) || port > 65535) {
      return refused('may use http only for a loopback address (127.0.0.1, [::1] or localhost); use https otherwise');
    }
    return { ok: true, kind: 'loopback' };
  }
  if (customSchemes.includes(scheme)) return { ok: true, kind: 'custom' };
  return refused(`uses the scheme "${scheme.slice(0, 32)}", which this server does not allow for redirects`);
}

function refused(why: string): RedirectCheck {
  return { ok: false, why };
}
